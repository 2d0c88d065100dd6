// Package realsecure tests dnecho and Java freon against a secure real Apache Ozone cluster
// (Kerberos, container tokens, gRPC TLS) in a network namespace of its own. It has only tests;
// being a package of its own, it runs beside e2e/realcluster.
package realsecure
