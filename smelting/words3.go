package smelting

import "strings"

// Word classes PatternV3 reads sentences with. Each is a switch, so that
// nothing here is mutable state and a lookup costs a few comparisons.

// subordinator reports a word that opens a subordinate or conditional
// clause: a claim introduced by it holds only under its condition.
func subordinator(w string) bool {
	switch w {
	case "if", "when", "whenever", "unless", "whether", "although", "though", "because", "since", "while",
		"where", "wherever", "once", "after", "before", "until", "till", "as", "provided", "assuming",
		"given", "whereas", "otherwise", "except", "lest":
		return true
	}
	return false
}

// connective reports a word that joins a clause to what came before; a
// head that opens with one is a fragment.
func connective(w string) bool {
	switch w {
	case "but", "and", "or", "nor", "so", "then", "thus", "hence", "however", "also", "yet", "still",
		"therefore", "consequently", "instead", "rather", "actually", "indeed", "really", "no", "e.g", "i.e", "eg", "ie":
		return true
	}
	return false
}

// introConnective reports a connective that may open a sentence before a
// comma without changing its claim ("However, X is Y" says X is Y).
func introConnective(w string) bool {
	switch w {
	case "however", "additionally", "also", "finally", "moreover", "furthermore", "instead", "likewise",
		"similarly", "still", "thus", "hence", "therefore", "consequently", "indeed", "actually", "really",
		"rather", "besides", "importantly", "notably", "next", "first", "second", "third", "lastly", "now":
		return true
	}
	return false
}

// hedge reports an adverb that makes a claim a tendency rather than a
// fact.
func hedge(w string) bool {
	switch w {
	case "typically", "usually", "often", "generally", "normally", "sometimes", "probably", "perhaps",
		"maybe", "likely", "possibly", "mostly", "frequently", "occasionally", "rarely", "seldom",
		"ordinarily", "commonly", "presumably", "arguably":
		return true
	}
	return false
}

// pronoun reports a pronoun or deictic that cannot be a head on its own.
func pronoun(w string) bool {
	switch w {
	case "it", "this", "that", "these", "those", "there", "here", "they", "we", "you", "one", "such",
		"which", "what", "who", "following", "he", "she", "him", "her", "them", "us", "i", "me",
		"itself", "themselves", "its", "their", "our", "your", "my", "his", "each", "both", "either",
		"neither", "all", "some", "any", "none", "another", "other", "others", "former", "latter", "above", "below":
		return true
	}
	return false
}

// personal reports a personal pronoun, which points outside the head
// wherever it stands in it ("the file it names").
func personal(w string) bool {
	switch w {
	case "it", "they", "we", "you", "he", "she", "him", "her", "them", "us", "i", "me":
		return true
	}
	return false
}

// deicticDeterminer reports a determiner that points back into the
// context: a head that opens with it names nothing on its own.
func deicticDeterminer(w string) bool {
	switch w {
	case "this", "that", "these", "those", "such", "its", "their", "his", "her", "our", "your", "my",
		"said", "same", "former", "latter", "above", "following":
		return true
	}
	return false
}

// determiner reports a word that opens a noun phrase.
func determiner(w string) bool {
	switch w {
	case "the", "a", "an", "any", "all", "each", "every", "some", "its", "their", "this", "these",
		"those", "his", "her", "our", "your", "my", "no", "another":
		return true
	}
	return false
}

// preposition reports a preposition, after which a noun phrase may start
// inside a head ("decompression of the .lz format").
func preposition(w string) bool {
	switch w {
	case "of", "for", "with", "to", "in", "on", "by", "from", "between", "as", "at", "into", "onto", "over",
		"under", "per", "than", "like", "about", "across", "against", "along", "among", "around",
		"behind", "below", "beneath", "beside", "besides", "beyond", "during", "inside", "near",
		"outside", "through", "throughout", "toward", "towards", "upon", "within", "without", "via",
		"including", "regarding", "versus", "vs", "off", "up", "down", "out":
		return true
	}
	return false
}

// auxiliary reports a modal or auxiliary verb: a head holding one holds a
// verb phrase, and a claim under a modal is not a fact.
func auxiliary(w string) bool {
	switch w {
	case "will", "would", "can", "could", "may", "might", "must", "shall", "should", "do", "does", "did",
		"cannot", "was", "were", "been", "being", "am", "had", "ought", "need", "needs":
		return true
	}
	return false
}

// clauseWord reports a word that opens a clause inside a head: the first
// relation word found after it may be that clause's verb.
func clauseWord(w string) bool {
	switch w {
	case "that", "which", "who", "whom", "whose", "whether", "if", "when", "where", "because", "while",
		"although", "though", "unless", "since", "until", "so", "but", "what", "how", "why", "whatever":
		return true
	}
	return false
}

// negating reports a word that negates its clause.
func negating(w string) bool {
	switch w {
	case "not", "no", "never", "cannot", "neither", "nor", "none", "nothing", "nobody", "nowhere":
		return true
	}
	return false
}

// tailClause reports a word that opens a clause as a complement: "The
// idea is that …", "X is what …".
func tailClause(w string) bool {
	switch w {
	case "that", "what", "how", "whether", "why", "where", "when", "if", "whatever", "which", "who":
		return true
	}
	return false
}

// cutAfterComma reports a word that, after a comma, opens a clause the
// claim does not need: a non-restrictive relative clause, a reason, a
// concession, a consequence or an example.
func cutAfterComma(w string) bool {
	switch w {
	case "which", "who", "whose", "where", "so", "because", "since", "though", "although", "while",
		"whereas", "as", "thus", "hence", "therefore", "i.e", "e.g", "eg", "ie", "unlike", "except", "like", "to", "see":
		return true
	}
	return false
}

// relativePronoun reports a word that opens a relative clause inside a
// complement.
func relativePronoun(w string) bool {
	switch w {
	case "that", "which", "who", "whom", "whose", "where":
		return true
	}
	return false
}

// trailingAdverb reports an adverb that may stand between a head and its
// verb, or open a complement, without changing the claim.
func trailingAdverb(w string) bool {
	switch w {
	case "also", "always", "still", "now", "thus", "therefore", "then", "yet":
		return true
	}
	return false
}

// vagueDefinition reports a one-word complement that defines nothing
// ("X is the same", "X is the default").
func vagueDefinition(w string) bool {
	switch w {
	case "same", "only", "first", "last", "best", "most", "opposite", "other", "latter", "former", "default",
		"case", "one", "way", "result", "reason", "problem", "answer", "idea", "point", "thing", "key":
		return true
	}
	return false
}

// modal reports a modal verb: what follows it is possible or required,
// not stated.
func modal(w string) bool {
	switch w {
	case "will", "would", "can", "could", "may", "might", "must", "shall", "should", "cannot", "ought":
		return true
	}
	return false
}

// pastParticiple reports a word that reads as a past participle: a regular
// one ending in "ed", or a common irregular one.
func pastParticiple(w string) bool {
	if len(w) > 4 && strings.HasSuffix(w, "ed") {
		return true
	}
	switch w {
	case "done", "made", "given", "known", "shown", "written", "taken", "seen", "set", "put", "built",
		"found", "held", "kept", "left", "sent", "run", "read", "chosen", "driven", "hidden", "thrown":
		return true
	}
	return false
}

// quantifier reports a word that, before "of", picks members of a group
// named elsewhere ("each of these", "many of them").
func quantifier(w string) bool {
	switch w {
	case "each", "one", "some", "all", "any", "none", "both", "many", "most", "few", "several", "either", "neither", "part", "rest":
		return true
	}
	return false
}
