package field

import (
	"strconv"
	"sync"
	"testing"

	"formation/runtime/text"
)

// TestRotorsChangeNoResult: prompts and terms through the memo, from
// several goroutines, are bit for bit those computed afresh, and the memo
// never holds more words than its bound.
func TestRotorsChangeNoResult(t *testing.T) {
	r := NewRotors(50)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				phrase := "what is term" + strconv.Itoa(i%80) + " of the focal point " + strconv.Itoa(g)
				tokens := text.Tokenize(phrase)
				if got, want := r.Prompt(tokens), EncodePrompt(tokens); got != want {
					t.Errorf("prompt %q: memo %v, fresh %v", phrase, got, want)
					return
				}
				if got, want := r.Term(phrase), TermRotor(phrase); got != want {
					t.Errorf("term %q differs through the memo", phrase)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := len(r.words); n != 50 {
		t.Errorf("memo holds %d words, bound 50 (more than 50 distinct words were met)", n)
	}
	var none *Rotors
	if none.Word("focal") != WordRotor("focal") {
		t.Error("a nil memo must compute afresh")
	}
}
