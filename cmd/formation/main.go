// Command formation runs every Formation verb: the seven stages, autorun,
// status, verify, canon, audit, ask, chat and the curator's tools. See
// `formation --help`.
package main

import (
	"os"

	"formation/internal/cli"
)

func main() {
	io := cli.StdIO()
	os.Exit(cli.Main(cli.NewApp(io), os.Args))
}
