// Command formation-promote is the promote stage alone: the same command as
// `formation promote`, with the same global flags and exit codes.
package main

import (
	"os"

	"formation/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.NewStageApp(cli.StdIO(), "promote"), os.Args))
}
