package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Word pools of the synthetic conversations.
var (
	synthPeople    = []string{"Alice", "Ben", "Chloe", "Daniel", "Emma", "Felix", "Grace", "Hugo", "Iris", "Jonas", "Kara", "Liam", "Mina", "Noah", "Olga", "Paul"}
	synthCompanies = []string{"Kakao", "Naver", "Samsung", "Coupang", "Toss", "Line", "Hyundai", "Acme", "Globex", "Initech", "Umbrella", "Stark Industries"}
	synthCities    = []string{"Seoul", "Busan", "Pangyo", "Incheon", "Daegu", "Jeju", "Berlin", "Lisbon", "Toronto", "Osaka"}
	synthDrinks    = []string{"green tea", "black coffee", "oat latte", "barley tea", "hot chocolate"}
	synthMonths    = []string{"January", "March", "May", "July", "September", "November"}
)

// synthTemplates are the messages: {P} another person, {C} a company, {T} a city, {D} a drink,
// {M} a month. Most state a fact the offline responder extracts; some are small talk.
var synthTemplates = []string{
	"I work at {C} now, mostly on payments.",
	"I live in {T}, close to the office.",
	"I moved to {T} last month.",
	"I joined {C} in {M}.",
	"I left {C} last week.",
	"My favorite drink is {D}.",
	"{P} works at {C}.",
	"I met {P} in {T} yesterday.",
	"{P} lives in {T}.",
	"How is the weather over there?",
	"Nice, talk soon!",
}

// synthEpisode is one line of the synthetic JSON Lines input.
type synthEpisode struct {
	GroupID       string `json:"group_id"`
	ReferenceTime string `json:"reference_time"`
	Speaker       string `json:"speaker"`
	Content       string `json:"content"`
}

// Synth writes n synthetic chat episodes as JSON Lines: groups of groupSize episodes, each a
// conversation of two people, one message a minute, from templates filled by a PCG seeded
// with seed. The same arguments always give the same bytes.
func Synth(w io.Writer, n, groupSize int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	bw := bufio.NewWriterSize(w, 1<<20)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	start := time.Date(2020, 1, 1, 9, 0, 0, 0, time.UTC)
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	var a, b string
	for i := 0; i < n; i++ {
		g := i / groupSize
		if i%groupSize == 0 {
			a = pick(synthPeople)
			for b = pick(synthPeople); b == a; b = pick(synthPeople) {
			}
		}
		speaker, other := a, b
		if rng.IntN(2) == 1 {
			speaker, other = b, a
		}
		text := strings.NewReplacer("{P}", other, "{C}", pick(synthCompanies), "{T}", pick(synthCities),
			"{D}", pick(synthDrinks), "{M}", pick(synthMonths)).Replace(pick(synthTemplates))
		at := start.Add(time.Duration(g)*time.Hour + time.Duration(i%groupSize)*time.Minute)
		err := enc.Encode(synthEpisode{GroupID: fmt.Sprintf("g%06d", g), ReferenceTime: at.Format(time.RFC3339),
			Speaker: speaker, Content: text})
		if err != nil {
			return fmt.Errorf("writing synthetic episode %d: %w", i, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing synthetic episodes: %w", err)
	}
	return nil
}
