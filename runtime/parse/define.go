package parse

import (
	"strings"

	"formation/runtime/text"
)

// DefinitionStatement is the intent of a statement that defines a term
// ("A lens is a curved glass."). Parse never returns it: only a teaching
// session reads such statements (ReadDefinition), as proposals.
const DefinitionStatement Intent = "definition_statement"

// maxDefinedWords bounds the defined term, as the smelter bounds a concept
// term (one to three words).
const maxDefinedWords = 3

// ReadDefinition reads an input's words (text.Words, as Parse reads them)
// as a statement that defines a term: "X is defined as Y", "X means Y", "X is a Y" (the article
// after "is" is part of the form, as the smelter reads it) or "X is Y", after
// a leading discourse marker. X is one to three words in text.NormalTerm's form; Y is
// the rest. Negations ("X is not Y") and questions' word orders are not
// definitions. It is a pure function of the input.
func ReadDefinition(input string) (term, definition string, ok bool) {
	body := dropMarker(text.Words(input))
	if len(body) < 3 || isWhWord(body[0]) || isAux(body[0]) || body[0] == "is" || body[0] == "are" {
		return "", "", false
	}
	for i := 1; i < len(body)-1; i++ {
		var rest []string
		switch w := body[i]; {
		case (w == "is" || w == "are") && i+2 < len(body) && body[i+1] == "defined" && body[i+2] == "as":
			rest = body[i+3:]
		case w == "means":
			rest = body[i+1:]
		case w == "is" || w == "are":
			rest = body[i+1:]
			if len(rest) > 1 && (rest[0] == "a" || rest[0] == "an") {
				rest = rest[1:]
			}
		default:
			continue
		}
		term = phrase(body[:i])
		words := len(strings.Fields(term))
		if len(rest) == 0 || rest[0] == "not" || words == 0 || words > maxDefinedWords || containsNot(body[:i]) {
			return "", "", false
		}
		return term, strings.Join(rest, " "), true
	}
	return "", "", false
}

func containsNot(ws []string) bool {
	for _, w := range ws {
		if w == "not" {
			return true
		}
	}
	return false
}
