// Package extracteval measures extraction against the labelled real-text
// set in smelting/testdata/realtext: it mines each labelled document as a
// subject of its own (every file allow-listed as primary), smelts it with
// the relations the document declares, forges it, and compares what was
// validated with the labels of the sentences each item cites.
//
// It is test support: `make eval-extraction` runs TestExtraction with
// FORMATION_EVAL_EXTRACTION=1 and prints the report. The ordinary test run
// only checks that the set is whole (every unit found in its mined text,
// labels well formed, the held-out part large enough).
//
// The report never lists individual held-out sentences, only figures, so
// that nobody tuning the extractor learns which held-out sentences it gets
// wrong.
package extracteval
