package offline

import "strings"

// set builds a lookup set from space-separated words.
func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// stopCaps are capitalised words that are not names: pronouns, function words, sentence
// openers, weekdays and months (lower-cased).
var stopCaps = set(`i i'm i've i'll i'd me my mine we we're we've our you you're your he he's
	his she she's her they they're their it it's its this that these those the a an and or but so
	if then there here what who whom whose which when where why how yes no not hi hello hey thanks
	thank ok okay oh wow well also actually honestly anyway btw today yesterday tomorrow tonight
	last next since before after on in at by until for from with about as of to do does did is are
	was were be been have has had can could will would should shall may might must let let's
	good great nice sure just really now please sorry congrats congratulations quick update big
	news lol haha hmm
	monday tuesday wednesday thursday friday saturday sunday
	january february march april may june july august september october november december
	jan feb mar apr jun jul aug sep sept oct nov dec`)

// firstPerson are the English words that make the speaker the subject.
var firstPerson = set(`i i'm i've i'll i'd me my myself`)

// pronouns are subjects that cannot be resolved to a name; statements about them are skipped.
var pronouns = set(`he she they we you it this that his her their our your its there who which
	he's she's they're we're you're it's we've they've`)

// skippable are words that may stand between a subject and its verb ("I have also just joined").
var skippable = set(`also now still just recently finally currently actually really already
	then so and but honestly officially soon eventually probably definitely even both all yes
	yeah well ok okay oh wow anyway btw big news quick update have has had 've been was were am
	is are 'm do does did don't doesn't didn't not never no longer will 'll shall going gonna
	to plan plans planning intend intends need needs must should about finally back mostly
	today yesterday tomorrow tonight last next this week month year ago on in at since from
	before after early late day weekend these days lately nowadays ever again first`)

// npStop ends a lower-case noun phrase.
var npStop = set(`over than to in on at for with from by since until till during because when
	while instead rather more most now these those lately anymore too so very really a an the
	lot nowadays again every each and or but as today yesterday tomorrow tonight this next last
	better best much if though although ever all either is are was were be it even still
	also just`)

// articles are dropped from the start of a noun phrase.
var articles = set(`the a an my our your his her their some those these`)

// objectPronouns cannot be the object of a fact.
var objectPronouns = set(`it this that them him her you me us everything anything something
	to nothing one everywhere anywhere somewhere here there`)

// auxVerbs are verbs that make no plan on their own ("I'll have.").
var auxVerbs = set(`have has be do does get go`)
