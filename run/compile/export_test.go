package compile

// Test hooks: parse and the two YAML readers it chooses between.
var (
	// Parse is Compile's reader of the course body.
	Parse = parse
	// FastParse is the one-pass reader, without its panic recovery.
	FastParse = parseFast
	// FastParseSplit is the one-pass reader with a given number of workers
	// for the parts of any sequence of splitAt items or more.
	FastParseSplit = parseSplit
	// ParseYAML is the yaml.v3 reader.
	ParseYAML = parseYAML
)
