package dnsim

import (
	"math/rand/v2"
	"sync"
)

// A real DataNode fills the Echo payload from a secure random generator
// (docs/ozone-echo.md#echo-response). Nobody inspects those bytes, and generating megabytes of
// crypto-random data per call would make the emulator, not the client, the
// bottleneck in benchmarks. So small payloads are windows into one shared,
// read-only buffer of ChaCha8 output, and only larger ones are generated per
// call. Sharing is safe because gRPC serialises the response before Send
// returns and nothing writes to the buffer after it is filled.
const sharedRandomSize = 1 << 20

var (
	sharedRandomOnce sync.Once
	sharedRandom     []byte
)

func randomSeed() [32]byte {
	var seed [32]byte
	for i := 0; i < len(seed); i += 8 {
		v := rand.Uint64()
		for j := 0; j < 8; j++ {
			seed[i+j] = byte(v >> (8 * j))
		}
	}
	return seed
}

// randomPayload returns exactly n pseudo-random bytes; the caller must not
// modify them.
func randomPayload(n int) []byte {
	if n <= 0 {
		return []byte{} // present but empty: the response still carries "0a 00"
	}
	if n <= sharedRandomSize {
		sharedRandomOnce.Do(func() {
			sharedRandom = make([]byte, sharedRandomSize)
			_, _ = rand.NewChaCha8(randomSeed()).Read(sharedRandom) // ChaCha8.Read never fails
		})
		off := rand.IntN(sharedRandomSize - n + 1)
		return sharedRandom[off : off+n : off+n]
	}
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(randomSeed()).Read(b)
	return b
}
