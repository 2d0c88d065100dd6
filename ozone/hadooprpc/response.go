package hadooprpc

import (
	"encoding/binary"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"github.com/dnecho/dnecho/ozone/hadooprpc/wire"
	"github.com/dnecho/dnecho/proto/hadooppb"
)

// response is one decoded response frame.
type response struct {
	header *hadooppb.RpcResponseHeaderProto
	body   []byte // SUCCESS only: the bytes of the length-delimited body
}

// readResponse reads one response frame from r. On a connection's first frame
// a length of -1 announces the pre-v9 fatal format (docs/hadoop-rpc.md#framing).
// I/O errors are returned as they are; malformed frames wrap ErrBadResponse.
// Hadoop: org/apache/hadoop/ipc/Client.java (IpcStreams.readResponse).
func readResponse(r io.Reader, maxLen int, first bool) (*response, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(lenBuf[:]))
	if first && n == -1 {
		return nil, readLegacyFatal(r, maxLen)
	}
	// The texts below are the Java client's; Ozone's retry policy matches on them.
	if n <= 0 {
		return nil, fmt.Errorf("%w: RPC response has invalid length %d", ErrBadResponse, n)
	}
	if int64(n) > int64(maxLen) {
		return nil, fmt.Errorf("%w: RPC response exceeds maximum data length (%d > %d)", ErrBadResponse, n, maxLen)
	}
	frame, err := wire.ReadN(r, int(n))
	if err != nil {
		return nil, err
	}
	return parseResponse(frame)
}

func parseResponse(frame []byte) (*response, error) {
	hb, rest, err := wire.ConsumeDelimited(frame)
	if err != nil {
		return nil, fmt.Errorf("%w: response header: %v", ErrBadResponse, err)
	}
	h := new(hadooppb.RpcResponseHeaderProto)
	if err := proto.Unmarshal(hb, h); err != nil {
		return nil, fmt.Errorf("%w: response header: %v", ErrBadResponse, err)
	}
	resp := &response{header: h}
	if h.GetStatus() != hadooppb.RpcResponseHeaderProto_SUCCESS {
		return resp, nil // ERROR and FATAL carry no body (docs/hadoop-rpc.md#framing)
	}
	if len(rest) == 0 {
		return nil, fmt.Errorf("%w: SUCCESS response without a body", ErrBadResponse)
	}
	body, rest, err := wire.ConsumeDelimited(rest)
	if err != nil {
		return nil, fmt.Errorf("%w: response body: %v", ErrBadResponse, err)
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: RPC response length mismatch (%d extra bytes)", ErrBadResponse, len(rest))
	}
	resp.body = body
	return resp, nil
}

// readLegacyFatal decodes the pre-v9 fatal reply a server sends to a client
// whose version it cannot speak: int32 status, then the exception class and
// message as Hadoop Writable strings (int32 length, -1 for null, UTF-8).
// Hadoop: org/apache/hadoop/ipc/Server.java (setupResponseOldVersionFatal).
func readLegacyFatal(r io.Reader, maxLen int) error {
	var status [4]byte
	if _, err := io.ReadFull(r, status[:]); err != nil {
		return err
	}
	class, err := readWritableString(r, maxLen)
	if err != nil {
		return err
	}
	msg, err := readWritableString(r, maxLen)
	if err != nil {
		return err
	}
	return &RemoteError{Class: class, Message: msg, Fatal: true}
}

func readWritableString(r io.Reader, maxLen int) (string, error) {
	var lenBuf [4]byte
	if _, err := io.ReadFull(r, lenBuf[:]); err != nil {
		return "", err
	}
	n := int32(binary.BigEndian.Uint32(lenBuf[:]))
	if n == -1 {
		return "", nil
	}
	if n < 0 || int64(n) > int64(maxLen) {
		return "", fmt.Errorf("%w: legacy fatal reply: string length %d", ErrBadResponse, n)
	}
	b, err := wire.ReadN(r, int(n))
	return string(b), err
}
