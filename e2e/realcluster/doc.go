// Package realcluster tests dnecho and Java freon against a real Apache Ozone cluster started
// from Maven Central's jars (testsupport/realozone), and checks that the emulator behaves the same
// wherever the real cluster showed a behaviour. It has only tests.
package realcluster
