package extract

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsChitchat reports whether a message states nothing to extract: it has a sentence, and each
// of its sentences is
//   - an English question (it ends with "?") with no digit, no first-person word ("I", "my",
//     "we"…) and no capitalised word but its first, "I" and the given names (the speakers of
//     the conversation): it asks, it does not state ("What made you pick it?"); or
//   - courtesy: every word a greeting, thanks, a reaction or a function word of the word lists
//     below, or one of the given names, and no digit ("Thanks, Mel! Take care.", "와 대박!").
//
// A question in Korean is never chit-chat (names cannot be told by their case), nor is a
// sentence with any other word. The text that follows a question, the answer, is extracted with
// the question in its context.
func IsChitchat(content string, names []string) bool {
	known := nameWords(names)
	sentences := splitSentences(content)
	if len(sentences) == 0 {
		return false
	}
	for _, s := range sentences {
		if strings.ContainsFunc(s, unicode.IsDigit) {
			return false
		}
		if !isQuestion(s, known) && !isCourtesy(s, known) {
			return false
		}
	}
	return true
}

// isQuestion: an English question asking, not stating (see IsChitchat).
func isQuestion(s string, names map[string]bool) bool {
	if !strings.HasSuffix(s, "?") || strings.ContainsFunc(s, isHangul) {
		return false
	}
	for i, w := range words(s) {
		lw := strings.ToLower(w)
		if firstPerson[lw] {
			return false
		}
		r, _ := utf8.DecodeRuneInString(w)
		if i > 0 && unicode.IsUpper(r) && lw != "i" && !isName(lw, names) {
			return false
		}
	}
	return true
}

// isCourtesy: every word is in the courtesy lists or a name (see IsChitchat).
func isCourtesy(s string, names map[string]bool) bool {
	ws := words(s)
	if len(ws) == 0 {
		return false
	}
	for _, w := range ws {
		lw := strings.ToLower(w)
		if hangulLaugh(lw) {
			continue
		}
		if !courtesy[lw] && !isName(lw, names) {
			return false
		}
	}
	return true
}

// nameWords are the lower-case words of names.
func nameWords(names []string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		for _, w := range words(n) {
			out[strings.ToLower(w)] = true
		}
	}
	return out
}

// isName reports whether a lower-case word, without an English possessive or contraction
// ("mel's"), is a word of a name or the start, three letters or more, of one ("mel" for
// "melanie").
func isName(w string, names map[string]bool) bool {
	if i := strings.IndexByte(w, '\''); i > 0 {
		w = w[:i]
	}
	if names[w] {
		return true
	}
	if utf8.RuneCountInString(w) < 3 {
		return false
	}
	for n := range names {
		if strings.HasPrefix(n, w) {
			return true
		}
	}
	return false
}

// words cuts a sentence into words: runs of letters, digits and apostrophes (’ read as ').
func words(s string) []string {
	s = strings.ReplaceAll(s, "’", "'")
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// splitSentences cuts text after each run of ".", "!", "?", "…" (and their full-width forms)
// and at line breaks; a sentence keeps its final punctuation.
func splitSentences(text string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '\n':
			emit(i)
		case strings.ContainsRune(".!?…。！？", r):
			j := i + n
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if !strings.ContainsRune(".!?…。！？", r2) {
					break
				}
				j += n2
			}
			i = j
			emit(j)
			continue
		}
		i += n
	}
	emit(len(text))
	for i, s := range out { // a "?" run ends a question whatever follows it ("?!")
		if strings.Contains(strings.TrimRight(s, ".!…。！"), "?") || strings.HasSuffix(s, "？") {
			out[i] = strings.TrimRight(s, ".!…。！？") + "?"
		}
	}
	return out
}

func isHangul(r rune) bool { return unicode.Is(unicode.Hangul, r) }

// hangulLaugh is a run of Korean laughter or crying jamo ("ㅋㅋ", "ㅎㅎ", "ㅠㅠ").
func hangulLaugh(w string) bool {
	return w != "" && strings.Trim(w, "ㅋㅎㅠㅜ") == ""
}

var firstPerson = wordSet(`i me my mine myself we us our ours ourselves i'm i've i'll i'd we're we've we'll we'd`)

// courtesy lists greetings, farewells, thanks, reactions, evaluative words and the function
// words that join them, in English and Korean.
var courtesy = wordSet(`
hi hey hello hiya yo bye goodbye cya ya see later soon talk chat catch ttyl night morning evening
afternoon day week weekend care take safe stay
thanks thank thx ty appreciate appreciated welcome anytime problem worries
wow whoa woah oh ooh ah aha aw aww awww haha hahaha hehe lol lmao omg yay yum yikes ouch oops phew
hmm huh ha woohoo oof
yes yeah yep yup yea sure ok okay alright right true totally definitely absolutely exactly agreed
agree indeed course no nope nah not
great good nice cool awesome amazing wonderful fantastic fabulous terrific brilliant excellent
perfect super lovely beautiful gorgeous stunning pretty cute adorable sweet kind fun funny exciting
excited interesting fascinating impressive inspiring inspirational incredible unbelievable powerful
touching heartwarming meaningful special magical peaceful rough tough hard sad glad happy proud
thrilled pumped stoked lucky rock rocks best
i me my you your yours it its it's that that's this these those they them their we us our a an
the and or but so to of for in on at with about as by from up out too also just really very much
such quite truly what what's how how's is are was were be been being am do does did have has had
will would can could should must may might get got go going gonna wanna gotta let let's keep all
there here more again one ever never always still same
love loved like liked enjoy enjoyed hope hoping wish wishing bet guess think thought know knew feel
felt sounds sound sounded looks look looked seems seem mean means meant hear heard wait can't
cannot won't don't doesn't didn't isn't wasn't aren't i'm i've i'll you're you've you'll that'll
it'll we're we'll they're there's here's
luck congrats congratulations cheers words support lot lots time long help sorry sense makes make
blast experience job well yourself posted updated news view pic picture photo moment moments journey
idea chatting catching tomorrow now run delicious talented important helpful encouragement motivating
motivated having back give need sometimes something everyone everything when if try guys together
part way thing while since happened made future say wanted want rooting step come far trip
감사합니다 고맙습니다 고마워요 고마워 감사해요 안녕하세요 안녕 네 넵 응 예 아 와 우와 오 헐 대박 좋아요
좋아 좋네요 좋다 멋져요 멋지네요 멋지다 축하해요 축하합니다 축하해 화이팅 파이팅 그래요 그래 맞아요
맞아 알겠어요 알겠습니다 진짜 정말 너무 잘 가 가요 또 봐요 봐`)

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}
