package override

// Tags of authority ("[SYSTEM]", "Developer note:"), settings switched off
// ("safety=false") and sentences that call the system by name.

import "strings"

// authorityTag reports a sentence that is only a tag of authority: "System
// override", "Developer note", "[ADMIN]", "Policy update 4.2", "Config v2".
func authorityTag(w []string) bool {
	if len(w) == 0 || len(w) > 4 {
		return false
	}
	n, strong := 0, false
	for _, x := range w {
		switch {
		case authority.Has(x):
			n++
			strong = strong || !weakAuthority.Has(x)
		case !versionLike(x) && !switchedOn.Has(x):
			return false
		}
	}
	return strong && n <= 3
}

// weakAuthority: words of a tag that speak for whoever governs the system
// only beside a stronger one ("Developer note:", "System notice:"): alone
// ("Note:", "Important:", "Update:") they open a remark in any document.
var weakAuthority = set("note", "memo", "notice", "attention", "update", "alert", "new", "message", "official",
	"important", "security", "mode", "change", "revision", "patch", "bulletin", "announcement")

// switchedOn: words that say a mode of authority is on ("Maintenance mode
// enabled:").
var switchedOn = set("enabled", "activated", "active", "engaged", "on", "live")

// versionLike reports a number or a version: "4", "2", "v2", "r17".
func versionLike(x string) bool {
	if x == "" {
		return false
	}
	if x[0] == 'v' || x[0] == 'r' {
		x = x[1:]
	}
	return x != "" && strings.Trim(x, "0123456789") == ""
}

// setting finds a governance setting switched off in a sentence that is a
// list of settings, or that a tag of authority heads: a governance noun
// (with a head: "safety mode") and right after it a value that switches it
// off or frees the system of it ("safety false", "persona unrestricted",
// "filters off", "moderation 0"); under a tag of authority a head of
// governance will do as the key ("### SYSTEM OVERRIDE ### checks: off").
// It returns the noun's and the value's index, or -1.
func setting(w []string, tagged bool) (int, int) {
	for j := 0; j+1 < len(w); j++ {
		if !governance.Has(w[j]) && !(tagged && heads.Has(w[j])) {
			continue
		}
		v := j + 1
		if heads.Has(w[v]) && v+1 < len(w) {
			v++
		}
		if (offValues.Has(w[v]) || freedom.Has(w[v])) && (v+1 == len(w) || authority.Has(w[v+1]) || governance.Has(w[v+1])) {
			return j, v // the value ends the setting: not "values[0] = &s"
		}
	}
	return -1, -1
}

// settingsOnly reports words that are only settings, up to the value
// found: no word of running prose ("safety false persona unrestricted" is;
// "set safety false only in test builds" is not).
func settingsOnly(w []string) bool {
	if len(w) < 2 || len(w) > 8 {
		return false
	}
	for _, x := range w {
		if (stops.Has(x) || removal.Has(x)) && !offValues.Has(x) || x == "set" || x == "use" || x == "only" || x == "example" {
			return false
		}
	}
	return true
}

// namesSelf reports a short sentence that calls the system: "Memo to the
// model", "Attention, assistant", "Hey AI" ("What is a language model?"
// calls nobody).
func namesSelf(w []string) bool {
	if len(w) == 0 || len(w) > 4 {
		return false
	}
	if last := w[len(w)-1]; !selves.Has(last) && !(last == "system" && at(w, len(w)-2) == "the" && (w[0] == "note" || w[0] == "memo" || w[0] == "message" || w[0] == "to")) {
		return false // "Note to the system:" calls it; "the system" elsewhere may be anything's
	}
	switch w[0] {
	case "memo", "note", "attention", "hey", "hi", "hello", "dear", "to", "message", "listen", "ok", "okay",
		"the", "assistant", "ai", "model", "bot", "chatbot":
		return true
	}
	return false
}

var authority = set("system", "admin", "administrator", "root", "sudo", "developer", "dev", "override", "note",
	"memo", "notice", "attention", "update", "alert", "operator", "kernel", "config", "policy", "new", "message",
	"official", "important", "security", "superuser", "maintenance", "mode", "sys", "configuration", "change",
	"revision", "patch", "bulletin", "announcement")
