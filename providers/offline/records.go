package offline

import (
	"encoding/json"
	"sort"
	"strings"
	"time"

	"github.com/tkgraph/backfill/llm/wire"
)

// record is a JSON object flattened to dotted lower-case keys with string values.
type record struct {
	keys []string // sorted
	vals map[string]string
}

// Field aliases, English and Korean.
var (
	aliasCustomer = []string{"customer", "customer_name", "client", "client_name", "user", "user_name", "username", "고객", "고객명", "회원", "회원명"}
	aliasName     = []string{"name", "이름"}
	aliasProduct  = []string{"product", "product_name", "item", "item_name", "상품", "상품명", "제품", "제품명"}
	aliasAccount  = []string{"account", "account_name", "계정"}
	aliasPlan     = []string{"plan", "plan_name", "subscription", "subscription_plan", "tier", "요금제", "플랜", "요금제명"}
	aliasPrevPlan = []string{"previous_plan", "old_plan", "prev_plan", "from_plan", "이전_요금제", "이전요금제", "기존_요금제", "기존요금제"}
	aliasEffect   = []string{"effective_date", "effective_from", "effective_at", "effective", "start_date", "started_at", "starts_at", "valid_from", "since", "적용일", "변경일", "시작일"}
	aliasEnd      = []string{"end_date", "ends_at", "valid_until", "valid_to", "expires_at", "expiry_date", "종료일", "만료일"}
	aliasStatus   = []string{"status", "state", "stock_status", "availability", "inventory_status", "상태", "재고상태", "재고_상태", "판매상태"}
	aliasStore    = []string{"store", "store_name", "warehouse", "shop", "branch", "location", "site", "매장", "지점", "창고", "점포"}
	aliasRestock  = []string{"restock_date", "restock_at", "restock", "restocks_on", "available_from", "available_on", "back_in_stock", "expected_restock", "restock_eta", "until", "재입고일", "재입고_예정일", "입고예정일", "재입고", "입고일"}
	aliasNote     = []string{"note", "notes", "memo", "comment", "comments", "description", "remark", "remarks", "비고", "메모", "설명"}
	aliasCompany  = []string{"company", "employer", "organization", "organisation", "workplace", "회사", "직장", "소속"}
	aliasCity     = []string{"city", "region", "도시", "지역"}
	aliasManager  = []string{"account_manager", "manager", "owner", "sales_rep", "담당자", "매니저"}
	aliasProdHint = []string{"sku", "price", "stock", "inventory", "가격", "재고", "상품코드"}
	outOfStock    = set(`out_of_stock outofstock sold_out soldout unavailable backordered 품절 일시품절 재고없음 재고_없음 매진`)
)

// parseRecord decodes a JSON object; ok is false for anything else.
func parseRecord(content string) (record, bool) {
	dec := json.NewDecoder(strings.NewReader(content))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || obj == nil {
		return record{}, false
	}
	r := record{vals: map[string]string{}}
	flatten("", obj, r.vals)
	for k := range r.vals {
		r.keys = append(r.keys, k)
	}
	sort.Strings(r.keys)
	return r, true
}

func flatten(prefix string, obj map[string]any, into map[string]string) {
	for k, v := range obj {
		key := strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(k)))
		if prefix != "" {
			key = prefix + "." + key
		}
		switch x := v.(type) {
		case map[string]any:
			flatten(key, x, into)
		case string:
			if s := strings.TrimSpace(x); s != "" {
				into[key] = s
			}
		case json.Number:
			into[key] = x.String()
		case bool:
			into[key] = map[bool]string{true: "true", false: "false"}[x]
		}
	}
}

// get returns the value of the first alias present as a key, as the last part of a dotted key,
// or as "<alias>.name".
func (r record) get(aliases ...string) (string, bool) {
	for _, a := range aliases {
		if v, ok := r.vals[a]; ok {
			return v, true
		}
		if v, ok := r.vals[a+".name"]; ok {
			return v, true
		}
		for _, k := range r.keys {
			if strings.HasSuffix(k, "."+a) {
				return r.vals[k], true
			}
		}
	}
	return "", false
}

// record extracts the facts of a JSON record; false means content is not a JSON object.
func (ex *extractor) record(content string) bool {
	r, ok := parseRecord(content)
	if !ok {
		return false
	}
	lang := "en"
	if hasHangul(content) {
		lang = "ko"
	}
	subj, subjType := ex.recordSubject(r)
	if subj == "" {
		ex.recordText(r)
		return true
	}
	subj = ex.ents.add(subj, subjType)
	ex.recordPlan(r, lang, subj, subjType)
	ex.recordStatus(r, lang, subj, subjType)
	simple := []struct {
		pred    string
		aliases []string
	}{{"WORKS_AT", aliasCompany}, {"LOCATED_IN", aliasCity}, {"MANAGED_BY", aliasManager}}
	for _, f := range simple {
		if v, ok := r.get(f.aliases...); ok {
			s := recordSpan(ex.ref, nil, nil)
			ex.add(draft{pred: f.pred, lang: lang, subj: subj, subjType: subjType, obj: v,
				objType: ex.objectType(f.pred), span: &s})
		}
	}
	return true
}

// recordText reads the free-text values of a record whose subject the rules do not know (such
// as the text fields of a snapshot, json.text_fields): each string value of three words or more,
// in key order, is read as text of the episode's speaker.
func (ex *extractor) recordText(r record) {
	for _, k := range r.keys {
		v := r.vals[k]
		if len(strings.Fields(v)) < 3 {
			continue
		}
		for _, s := range splitSentences(v) {
			if hasHangul(s.text) {
				ex.korean(s)
			} else {
				ex.english(s)
			}
		}
	}
}

// recordSubject is the record's customer, user, name, product or account, with its type.
func (ex *extractor) recordSubject(r record) (string, string) {
	if v, ok := r.get(aliasCustomer...); ok {
		return v, ex.onto.pick(typesCustomer...)
	}
	if v, ok := r.get(aliasName...); ok {
		if _, product := r.get(aliasProdHint...); product {
			return v, ex.onto.pick(typesProduct...)
		}
		return v, ex.onto.pick(typesCustomer...)
	}
	if v, ok := r.get(aliasProduct...); ok {
		return v, ex.onto.pick(typesProduct...)
	}
	if v, ok := r.get(aliasAccount...); ok {
		return v, ex.onto.pick(typesCustomer...)
	}
	return "", ""
}

// recordSpan is the interval of a record's state: from its effective date (or the reference
// time) to its end date; a start after the reference time makes it a scheduled state.
func recordSpan(ref time.Time, since, until *time.Time) span {
	s := span{kind: wire.KindState, since: since, until: until, valid: since, invalid: until}
	if s.valid == nil {
		s.valid = &ref
	}
	if s.valid.After(ref) {
		s.kind = wire.KindScheduledState
	}
	return s
}
