// Command formation-ratify is the ratify stage alone: the same command as
// `formation ratify`, with the same global flags and exit codes.
package main

import (
	"os"

	"formation/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.NewStageApp(cli.StdIO(), "ratify"), os.Args))
}
