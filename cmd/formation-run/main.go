// Command formation-run is the run stage alone: the same command as
// `formation run`, with the same global flags and exit codes.
package main

import (
	"os"

	"formation/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.NewStageApp(cli.StdIO(), "run"), os.Args))
}
