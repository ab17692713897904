// Package smelting is the Smelt stage's pure core: it turns mined ore
// (an artifact.OreBundle plus the extracted text of each entry) into an
// artifact.SmeltedBundle of concept, relation, counter-claim and ordering
// candidates, each anchored to the exact bytes it came from.
package smelting
