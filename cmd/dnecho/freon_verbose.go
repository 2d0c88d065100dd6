package main

import (
	"strconv"

	"github.com/spf13/pflag"

	"github.com/dnecho/dnecho/ozone/echo"
)

// javaOptionFlags are the dn-echo options Java freon lists itself, and the parent options it
// keeps out of the list (--conf, -D); freonOptionList adds dnecho's others after them.
var javaOptionFlags = map[string]bool{
	"number-of-tests": true, "threads": true, "thread": true, "duration": true, "fail-at-end": true, "prefix": true,
	"payload-req": true, "payload-resp": true, "container-id": true, "sleep-time-ms": true, "clients": true,
	"read-only": true, "ratis": true, "help": true, "version": true, "verbose": true, "server": true,
	"conf": true, "set": true,
}

// freonOptionList is what --verbose lists after the report: Java freon's options in its order
// (picocli's CommandSpec.options() of dn-echo: BaseFreonGenerator's, DNRPCLoadGenerator's, the
// help mixin's, then Freon's inherited --verbose; docs/ozone-echo.md#the-report), with the values
// the run used as Java shows them (an unset --duration is null, --prefix the resolved one,
// --read-only true when forced), then dnecho's own options as given or defaulted. An encoded
// --token is not shown.
func (f *dnEchoFlags) freonOptionList(fl *pflag.FlagSet, prefix string, spec echo.Spec) []string {
	dur := f.run.Duration
	if dur == "" {
		dur = "null"
	}
	clients := spec.Clients
	if clients == 0 {
		clients = echo.DefaultClients
	}
	b := strconv.FormatBool
	list := []string{
		"--number-of-tests=" + strconv.FormatInt(f.run.NumberOfTests, 10),
		"--threads=" + strconv.Itoa(f.run.Threads),
		"--duration=" + dur,
		"--fail-at-end=" + b(f.run.FailAtEnd),
		"--prefix=" + prefix,
		"--payload-req=" + strconv.Itoa(f.payloadReqKB),
		"--payload-resp=" + strconv.Itoa(f.payloadRespKB),
		"--container-id=" + strconv.FormatInt(spec.ContainerID, 10),
		"--sleep-time-ms=" + strconv.Itoa(int(spec.Request.SleepMs)),
		"--clients=" + strconv.Itoa(clients),
		"--read-only=" + b(spec.Request.ReadOnly || spec.Transport != echo.TransportRatis),
		"--ratis=" + b(spec.Transport == echo.TransportRatis),
		"--help=false",
		"--version=false",
		"--verbose=true",
	}
	fl.VisitAll(func(fg *pflag.Flag) {
		if fg.Hidden || javaOptionFlags[fg.Name] {
			return
		}
		v := fg.Value.String()
		if fg.Name == "token" && v != echo.TokenAuto && v != echo.TokenNone {
			v = "(not shown)"
		}
		list = append(list, "--"+fg.Name+"="+v)
	})
	return list
}
