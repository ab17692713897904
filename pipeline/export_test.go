package pipeline

// SetIndexBeside sets the largest course YAML whose set the run stage
// indexes beside the compilation: -1 for none, 0 for the default.
func SetIndexBeside(p *Pipeline, n int) { p.indexBeside = n }
