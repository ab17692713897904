package ledger

import "formation/canon"

func canonMarshal(v any) (string, error) {
	b, err := canon.Marshal(v)
	return string(b), err
}
