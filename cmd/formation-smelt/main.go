// Command formation-smelt is the smelt stage alone: the same command as
// `formation smelt`, with the same global flags and exit codes.
package main

import (
	"os"

	"formation/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.NewStageApp(cli.StdIO(), "smelt"), os.Args))
}
