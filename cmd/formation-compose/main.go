// Command formation-compose is the compose stage alone: the same command as
// `formation compose`, with the same global flags and exit codes.
package main

import (
	"os"

	"formation/internal/cli"
)

func main() {
	os.Exit(cli.Main(cli.NewStageApp(cli.StdIO(), "compose"), os.Args))
}
