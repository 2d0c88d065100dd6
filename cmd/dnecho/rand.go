package main

import "math/rand/v2"

// randIndex returns a random index in [0, n) (freon's random prefix).
func randIndex(n int) int { return rand.IntN(n) }
