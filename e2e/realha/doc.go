// Package realha tests dnecho and Java freon against a real Apache Ozone SCM HA service: three
// SCMs, an OM and three DataNodes from Maven Central's jars on one host (testsupport/realozone), with
// a follower listed first, and with the first-listed SCM hung (SIGSTOP). It has only tests; being
// a package of its own, it runs beside e2e/realcluster.
package realha
