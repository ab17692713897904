// Package exporttest reads `formation export`'s Parquet files back with an
// independent reader, DuckDB (through its Go driver, which needs cgo). It is
// a module of its own so that the driver stays out of formation's module;
// `make test` runs it after the main module's tests.
package exporttest
