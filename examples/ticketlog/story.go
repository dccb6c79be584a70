package ticketlog

// ticket is one issue of the story.
type ticket struct {
	repo   string
	number int
	title  string
	author string
	body   string
}

// event is one line of the change log: what happened to a ticket, when and by whom. Fields
// that do not apply to an action are empty.
type event struct {
	at      string // RFC 3339, UTC: the updated_at after the event
	ticket  int    // index in tickets
	action  string // opened | assigned | unassigned | labeled | unlabeled | milestoned | closed | reopened | commented
	actor   string
	who     string // assigned / unassigned login
	label   string // labeled / unlabeled name
	reason  string // closed: completed | not_planned
	comment string // commented: the comment's body
}

var tickets = []ticket{
	{"storefront", 101, "Checkout button unresponsive on Safari", "carol",
		"On Safari 17.4 (macOS 14) the Place order button on the checkout page does nothing when it is clicked. " +
			"The console shows `TypeError: undefined is not an object (evaluating 'window.PaymentRequest.prototype')`. " +
			"Chrome and Firefox work. Steps: add any item to the cart, go to checkout, fill in the address, click Place order. " +
			"Expected: the payment sheet opens. Actual: nothing happens, no network request is sent. This blocks every Safari customer."},
	{"storefront", 102, "Add Korean translations to the cart page", "jiwoo",
		"The cart page still shows English strings when the locale is ko-KR: the subtotal label, the shipping estimate, " +
			"the coupon field and the empty-cart message. The strings are in `cart/messages.en.json`; please add " +
			"`cart/messages.ko.json` and wire it into the locale loader. Jiwoo lives in Seoul and can review the copy."},
	{"storefront", 103, "Out-of-stock badge shows on available items", "dana",
		"Product pages show the Out of stock badge for items that have stock in at least one store. The badge reads " +
			"the first store's inventory only. Example: the Aurora Lamp page shows the badge although the Uptown store has 12."},
	{"storefront", 104, "Search results ignore the size filter", "mina",
		"Filtering search results by size (for example M) returns every size. The filter is sent as `size=M` but the " +
			"search service expects `sizes[]=M` since the API change in April. Affects the web and the app."},
	{"billing", 7, "Invoices show the wrong VAT rate for Germany", "olga",
		"Invoices for German customers are issued with 16% VAT, the temporary 2020 rate, instead of 19%. The rate table " +
			"in `tax/rates.yaml` has an expired entry that still wins because it is matched first."},
	{"billing", 8, "Export invoices as CSV", "olga",
		"Finance wants a CSV export of the invoices of a month: number, date, customer, net, VAT, gross and currency, " +
			"one invoice per line, for the monthly close."},
}

// events are the change log in the order it was written. One line (the second assignment of
// ticket 101) was delivered late: it sits after later events of the same ticket.
var events = []event{
	{at: "2024-05-06T09:12:00Z", ticket: 0, action: "opened", actor: "carol"},
	{at: "2024-05-06T09:20:00Z", ticket: 0, action: "labeled", actor: "carol", label: "bug"},
	{at: "2024-05-06T10:02:00Z", ticket: 0, action: "assigned", actor: "ben", who: "mina"},
	{at: "2024-05-06T11:30:00Z", ticket: 1, action: "opened", actor: "jiwoo"},
	{at: "2024-05-06T11:31:00Z", ticket: 1, action: "labeled", actor: "jiwoo", label: "enhancement"},
	{at: "2024-05-06T14:45:00Z", ticket: 0, action: "commented", actor: "mina",
		comment: "Reproduced on Safari 17.4. Dana Lee from support reported the same thing twice today. " +
			"The PaymentRequest polyfill is only loaded for Chrome, which is why Safari breaks."},
	{at: "2024-05-07T08:05:00Z", ticket: 0, action: "labeled", actor: "ben", label: "priority-high"},
	{at: "2024-05-07T08:40:00Z", ticket: 2, action: "opened", actor: "dana"},
	{at: "2024-05-07T08:41:00Z", ticket: 2, action: "labeled", actor: "dana", label: "bug"},
	{at: "2024-05-07T09:00:00Z", ticket: 1, action: "assigned", actor: "jiwoo", who: "jiwoo"},
	{at: "2024-05-07T13:10:00Z", ticket: 0, action: "unassigned", actor: "ben", who: "mina"},
	{at: "2024-05-07T13:15:00Z", ticket: 0, action: "commented", actor: "mina",
		comment: "I moved to the Payments team last week, so Ben will take this one. The fix is a one-line change in checkout/bootstrap.ts."},
	{at: "2024-05-07T15:20:00Z", ticket: 2, action: "assigned", actor: "ben", who: "ben"},
	{at: "2024-05-07T16:00:00Z", ticket: 2, action: "commented", actor: "dana",
		comment: "The Aurora Lamp is out of stock at the Downtown store, but the Uptown store has it, and the page still shows the badge."},
	{at: "2024-05-08T07:55:00Z", ticket: 3, action: "opened", actor: "mina"},
	{at: "2024-05-08T08:30:00Z", ticket: 3, action: "labeled", actor: "mina", label: "bug"},
	{at: "2024-05-08T09:10:00Z", ticket: 3, action: "assigned", actor: "mina", who: "carol"},
	{at: "2024-05-08T10:00:00Z", ticket: 1, action: "milestoned", actor: "jiwoo"},
	{at: "2024-05-08T12:40:00Z", ticket: 0, action: "commented", actor: "ben",
		comment: "I will deploy the fix to staging on Friday. The polyfill now loads for every browser without PaymentRequest."},
	{at: "2024-05-09T09:30:00Z", ticket: 1, action: "commented", actor: "jiwoo",
		comment: "Translations are done; Jiwoo lives in Seoul and reviewed the copy with the marketing team."},
	{at: "2024-05-09T10:05:00Z", ticket: 3, action: "unassigned", actor: "carol", who: "carol"},
	{at: "2024-05-09T10:06:00Z", ticket: 3, action: "assigned", actor: "carol", who: "mina"},
	{at: "2024-05-10T16:30:00Z", ticket: 0, action: "closed", actor: "ben", reason: "completed"},
	{at: "2024-05-10T17:00:00Z", ticket: 1, action: "closed", actor: "jiwoo", reason: "completed"},
	{at: "2024-05-13T08:20:00Z", ticket: 0, action: "commented", actor: "carol",
		comment: "Still broken for me on Safari 17.5: the button works once, then stops after the address is edited."},
	{at: "2024-05-13T08:21:00Z", ticket: 0, action: "reopened", actor: "carol"},
	{at: "2024-05-13T09:00:00Z", ticket: 2, action: "commented", actor: "ben",
		comment: "The badge reads only the first store. Olga works at the Warehouse team and confirmed the Uptown stock."},
	{at: "2024-05-14T11:00:00Z", ticket: 3, action: "commented", actor: "mina",
		comment: "The search service expects sizes[] since April; I will send a fix to the web client today."},
	{at: "2024-05-15T14:10:00Z", ticket: 0, action: "commented", actor: "ben",
		comment: "Found it: editing the address re-renders the form without the polyfill. Fixed in the second patch."},
	{at: "2024-05-16T09:00:00Z", ticket: 0, action: "closed", actor: "ben", reason: "completed"},
	{at: "2024-05-16T10:30:00Z", ticket: 2, action: "unlabeled", actor: "ben", label: "bug"},
	{at: "2024-05-16T10:31:00Z", ticket: 2, action: "labeled", actor: "ben", label: "wontfix"},
	{at: "2024-05-16T10:35:00Z", ticket: 2, action: "closed", actor: "ben", reason: "not_planned"},
	{at: "2024-05-17T08:00:00Z", ticket: 3, action: "closed", actor: "mina", reason: "completed"},
	{at: "2024-05-06T13:05:00Z", ticket: 0, action: "assigned", actor: "ben", who: "ben"}, // delivered late
	{at: "2024-05-20T09:00:00Z", ticket: 4, action: "opened", actor: "olga"},
	{at: "2024-05-20T09:05:00Z", ticket: 4, action: "labeled", actor: "olga", label: "bug"},
	{at: "2024-05-20T09:30:00Z", ticket: 4, action: "assigned", actor: "olga", who: "olga"},
	{at: "2024-05-21T15:00:00Z", ticket: 4, action: "commented", actor: "olga",
		comment: "Olga visited Berlin last month and the tax advisors confirmed 19%. I will remove the expired rate."},
	{at: "2024-05-22T10:00:00Z", ticket: 5, action: "opened", actor: "olga"},
	{at: "2024-05-22T10:10:00Z", ticket: 5, action: "assigned", actor: "olga", who: "ben"},
	{at: "2024-05-23T12:00:00Z", ticket: 4, action: "closed", actor: "olga", reason: "completed"},
	{at: "2024-05-24T09:45:00Z", ticket: 5, action: "commented", actor: "ben",
		comment: "Finance prefers semicolons as separators because Excel in Germany reads them. I will add a delimiter option."},
	{at: "2024-05-27T11:00:00Z", ticket: 5, action: "unassigned", actor: "olga", who: "ben"},
	{at: "2024-05-27T11:01:00Z", ticket: 5, action: "assigned", actor: "olga", who: "carol"},
	{at: "2024-05-28T16:20:00Z", ticket: 5, action: "labeled", actor: "carol", label: "enhancement"},
}
