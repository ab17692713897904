// Package deploytest tests deploy/ as written: the Dockerfile and the
// build context's .dockerignore statically, every Kubernetes and Argo
// Workflows manifest by strict decoding into their API types, every flag
// and environment variable they use against the command line, and the
// workloads themselves with a local executor that runs each container's
// command and args as a process of the binaries built from this
// repository, against a real S3 server.
//
// It is a module of its own (formation/deploy/deploytest, with the main
// module replaced by the checkout) so that the Kubernetes API types never
// enter the main module's build: `go list ./...` at the root does not see
// it, and `make test` runs it separately.
//
// The Argo Workflows types are a minimal typed mirror (argo.go) rather than
// the project's own Go module: the only version the module proxy serves
// here (v4.0.5) has reported security flaws, and it pulls the controller's
// whole dependency tree (cloud storage clients, databases) into a test that
// needs twelve structs. The mirror holds only the fields the manifests use,
// each checked against Argo's published JSON schema (testdata), so strict
// decoding refuses any other field: a manifest that needs one more field
// adds it to the mirror, and the schema test checks it.
package deploytest
