// The request loop of gitfleet's Go harnesses (bench/karmada_*.go): bench/karmada_harness.py's
// build copies this file beside the harness it builds, into the package it makes inside a
// Karmada checkout, and removes both afterwards. A harness's main hands serve the function that
// answers one scenario; the rest of the harness is its own logic. gitfleet's own code; it holds
// none of Karmada's.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
)

// longestScenario is the longest line serve reads: a scenario, or the bench's fleet, in bytes.
const longestScenario = 64 << 20

// serve reads scenarios from stdin, one JSON document a line decoded into an In, and writes what
// `answer` makes of each to stdout as one JSON line, flushed when stdin ends.
//
// What Karmada's code fails at is an answer, in the shape each harness gives it. An error of
// `answer` is not: it is a scenario the harness refuses (one it does not model, or that no
// scenario generator should make). It stops the harness with exit status 1, the scenario's line
// and then the error written to stderr (the error last, where the tail of stderr that
// karmada_harness.answers shows keeps it), and so do a line that is no In, an answer
// encoding/json cannot write and a stdin that cannot be read.
func serve[In, Out any](answer func(*In) (Out, error)) {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, longestScenario), longestScenario)
	out := bufio.NewWriter(os.Stdout)
	stop := func(line int, what string, err error) {
		fmt.Fprintf(os.Stderr, "%s\nline %d of stdin: %s: %v\n", in.Bytes(), line, what, err)
		os.Exit(1)
	}
	line := 0
	for in.Scan() {
		line++
		var sc In
		if err := json.Unmarshal(in.Bytes(), &sc); err != nil {
			stop(line, "bad case", err)
		}
		a, err := answer(&sc)
		if err != nil {
			stop(line, "refused case", err)
		}
		written, err := json.Marshal(a)
		if err != nil {
			stop(line, "answer not written", err)
		}
		out.Write(written)
		out.WriteByte('\n')
	}
	if err := in.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "line %d of stdin: not read: %v\n", line+1, err)
		os.Exit(1)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "writing the answers:", err)
		os.Exit(1)
	}
}
