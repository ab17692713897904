package compile_test

import (
	"errors"

	"formation/run/compile"
)

func isKind(err error, kind compile.Kind) bool {
	return errors.Is(err, &compile.Error{Kind: kind})
}
