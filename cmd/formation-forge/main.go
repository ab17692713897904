// Command formation-forge is the forge stage alone: the same command as
// `formation forge`, with the same global flags and exit codes.
package main

import (
	"os"

	"formation/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.NewStageApp(cli.StdIO(), "forge"), os.Args))
}
