// Command formation-mine is the mine stage alone: the same command as
// `formation mine`, with the same global flags and exit codes.
package main

import (
	"os"

	"formation/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.NewStageApp(cli.StdIO(), "mine"), os.Args))
}
