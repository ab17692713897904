package cli

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// Every flag reads one environment variable, named by one rule:
// FORMATION_<FLAG> for a global flag, FORMATION_<VERB>_<FLAG> for a verb's
// own flag (VERB is the word after `formation`, so sub-commands share their
// verb's prefix: `audit list --subject` reads FORMATION_AUDIT_SUBJECT).
// Flags are declared without EnvVars; applyEnvRule names them all.

// envName is the variable the rule gives a flag of verb ("" for a global
// flag).
func envName(verb, flag string) string {
	parts := []string{"FORMATION"}
	if verb != "" {
		parts = append(parts, verb)
	}
	parts = append(parts, flag)
	return strings.ToUpper(strings.ReplaceAll(strings.Join(parts, "_"), "-", "_"))
}

// applyEnvRule sets every flag's EnvVars to the one name the rule gives it.
func applyEnvRule(app *cli.App) {
	for _, f := range app.Flags {
		setEnvVars(f, envName("", f.Names()[0]))
	}
	for _, c := range app.Commands {
		applyVerbEnv(c.Name, c)
	}
}

func applyVerbEnv(verb string, c *cli.Command) {
	for _, f := range c.Flags {
		setEnvVars(f, envName(verb, f.Names()[0]))
	}
	for _, s := range c.Subcommands {
		applyVerbEnv(verb, s)
	}
}

// setEnvVars sets the EnvVars field every urfave/cli flag type has.
func setEnvVars(f cli.Flag, name string) {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("cli: flag %T is not a pointer to a struct", f)) // a wiring bug, caught by the tests
	}
	field := v.Elem().FieldByName("EnvVars")
	if !field.IsValid() || field.Type() != reflect.TypeFor[[]string]() {
		panic(fmt.Sprintf("cli: flag %T has no EnvVars", f))
	}
	field.Set(reflect.ValueOf([]string{name}))
}

// legacyName is a variable read before the rule existed. It still sets its
// flag when the rule's own variable and the flag itself are not given;
// unless kept, it prints a deprecation warning when it does.
type legacyName struct {
	env  string
	verb string // "" = every verb that has the flag
	flag string
	kept bool // named by other documents: read without a warning
}

// legacyNames lists the variables that break the rule and still work.
func legacyNames() []legacyName {
	return []legacyName{
		{env: "FORMATION_JOBS", flag: "jobs"},
		{env: "FORMATION_ENABLE_LLM_SOURCE", flag: "enable-llm-source"},
		{env: "FORMATION_LLM_COMMAND", flag: "llm-command"},
		{env: "FORMATION_EXPLAIN", flag: "explain"},
		{env: "FORMATION_ISSUED_AT", flag: "issued-at"},
		{env: "FORMATION_CURATOR_KEY", verb: "promote", flag: "key"},
		{env: "FORMATION_IDENTITY", flag: "identity"},
		{env: "FORMATION_KNOWLEDGE", flag: "knowledge"},
		{env: "FORMATION_TRACE", flag: "trace"},
		{env: "FORMATION_EXPECT_HEAD", flag: "expect-head", kept: true},
		{env: "FORMATION_IDENTITY_HARD_BLOCK", flag: "identity-hard-block", kept: true},
		{env: "FORMATION_EXPECT_HEAD_FILE", flag: "expect-head-file"},
	}
}

// legacyFlags returns, for the command at path, the flags its legacy
// variables set (as --flag=value words, placed before the command's own
// flags so that those win) and the warnings to print. A legacy variable is
// ignored when the rule's variable or the flag on the command line is given.
func legacyFlags(cmd node, given []string, getenv func(string) (string, bool)) (flags, warnings []string) {
	if len(cmd.path) == 0 {
		return nil, nil
	}
	verb := cmd.path[0]
	for _, ln := range legacyNames() {
		if ln.verb != "" && ln.verb != verb {
			continue
		}
		f := findFlag(cmd.flags, ln.flag)
		value, set := getenv(ln.env)
		if f == nil || !set || value == "" {
			continue
		}
		canonical := envName(verb, ln.flag)
		if _, ok := getenv(canonical); ok || flagGiven(f, given) {
			continue
		}
		flags = append(flags, "--"+ln.flag+"="+value)
		if !ln.kept {
			warnings = append(warnings, fmt.Sprintf("warning: %s is deprecated; use %s", ln.env, canonical))
		}
	}
	return flags, warnings
}

// flagGiven reports whether words hold the flag f.
func flagGiven(f cli.Flag, words []string) bool {
	for _, w := range words {
		if !strings.HasPrefix(w, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if slices.Contains(f.Names(), name) {
			return true
		}
	}
	return false
}

// envOther lists the variables read by something other than a flag, for
// `formation --help`.
const envOther = `
ENVIRONMENT:
   Every flag reads one variable: FORMATION_<FLAG> for a global flag
   (--store: FORMATION_STORE), FORMATION_<VERB>_<FLAG> for a verb's own flag
   (promote --key: FORMATION_PROMOTE_KEY); each is shown beside its flag in
   the verb's --help. Besides those:

   FORMATION_S3_ENDPOINT        S3 endpoint, host[:port] or http(s)://host[:port]
                                (fallbacks AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL;
                                default s3.amazonaws.com)
   FORMATION_S3_INSECURE        1: plain http to a host[:port] endpoint
   FORMATION_S3_TIMEOUT         the deadline of one S3 request attempt (a Go
                                duration, default 30s)
   FORMATION_S3_RETRY_BUDGET    how long one operation retries transient S3
                                failures (default 60s); a dead endpoint exits 75
                                within TIMEOUT + RETRY_BUDGET
   AWS_ACCESS_KEY_ID            S3 credentials (both or neither; neither: the AWS
   AWS_SECRET_ACCESS_KEY        credentials file, AWS_SHARED_CREDENTIALS_FILE, or
   AWS_SESSION_TOKEN            the instance role)
   AWS_REGION                   S3 region (fallback AWS_DEFAULT_REGION)
   CORE_ALLOW_UNRATIFIED_SAFETY    1: load unratified safety and identity packs
                                   (development only; warned on every start)
   CORE_ALLOW_UNRATIFIED_IDENTITY  1: load unratified identity packs
   CI                           true: no progress bars
   GOGC, GOMEMLIMIT             Go's garbage collector settings; either one
                                replaces formation's own pacing (the heap grows
                                by at least 128 MiB between collections)
   FORMATION_LLM_MODEL, FORMATION_LLM_SOURCE
                                set by mine for the --llm-command it runs

   Still read, deprecated (each prints a warning): FORMATION_JOBS,
   FORMATION_ENABLE_LLM_SOURCE, FORMATION_LLM_COMMAND, FORMATION_EXPLAIN,
   FORMATION_ISSUED_AT, FORMATION_CURATOR_KEY, FORMATION_IDENTITY,
   FORMATION_KNOWLEDGE, FORMATION_TRACE, FORMATION_EXPECT_HEAD_FILE.
   Read without a warning: FORMATION_EXPECT_HEAD (ledger and check) and
   FORMATION_IDENTITY_HARD_BLOCK (ask, chat and eval).
`

// lookupEnv is the process environment, as legacyFlags reads it.
func lookupEnv(name string) (string, bool) { return os.LookupEnv(name) }

func printWarnings(w io.Writer, warnings []string) {
	for _, s := range warnings {
		fmt.Fprintln(w, s)
	}
}
