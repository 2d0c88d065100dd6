// Package hadooprpcvectors holds the byte vectors of an SCM session over Hadoop RPC
// (docs/hadoop-rpc.md#test-vectors), for the tests of the client (ozone/hadooprpc), the server
// (minicluster/rpcserver) and the emulated SCM (minicluster/scmsim). Every vector uses the
// values below.
package hadooprpcvectors

import (
	"encoding/hex"
	"strings"
)

// The values every vector uses.
const (
	// User is the effective user of the connection context.
	User = "hadoop"
	// Protocol is the SCM protocol the session calls.
	Protocol = "org.apache.hadoop.hdds.scm.protocol.StorageContainerLocationProtocol"
	// NotLeaderClass and NotLeaderMsg are the exception of NotLeader.
	NotLeaderClass = "org.apache.hadoop.hdds.ratis.ServerNotLeaderException"
	NotLeaderMsg   = "SCM Server:scm1(scm1.example.com) is not the leader. Suggested leader is Server:scm2.example.com:9860."
)

// ClientID is the client id of every vector, a0 a1 … af.
func ClientID() []byte {
	return []byte{0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf}
}

// What the client sends (docs/hadoop-rpc.md#client-frames), as hex.
const (
	// PreambleSimple and PreambleSASL open a connection.
	PreambleSimple = "68727063090000"
	PreambleSASL   = "687270630900df"
	// Context is the connection context: callId -3, user hadoop, the SCM protocol.
	Context = `0000006c
1a 0802 1000 1805 2210 a0a1a2a3a4a5a6a7a8a9aaabacadaeaf 2801
50 12080a066861646f6f70 1a44 6f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c`
	// GetContainer, ListPipelines and GetContainerToken are the calls with callIds 0, 1 and 2.
	GetContainer      = "000000801a0802100018002210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010c0802120018033a0408011200"
	ListPipelines     = "0000007e1a0802100018022210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010a08091200180372020a00"
	GetContainerToken = "000000811a0802100018042210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2800570a0d7375626d69745265717565737412446f72672e6170616368652e6861646f6f702e686464732e73636d2e70726f746f636f6c2e53746f72616765436f6e7461696e65724c6f636174696f6e50726f746f636f6c18010d081b120018038202040a020801"
	// Ping is the ping frame (callId -4).
	Ping = "0000001b1a0802100018072210a0a1a2a3a4a5a6a7a8a9aaabacadaeaf2801"
	// SASLNegotiate is the client's NEGOTIATE (callId -33).
	SASLNegotiate = "0000000e0a08021000184122002801021001"
	// WrapGetContainer, WrapListPipelines and WrapGetContainerToken are the SCM request
	// wrappers the three calls carry.
	WrapGetContainer      = "0802120018033a0408011200"
	WrapListPipelines     = "08091200180372020a00"
	WrapGetContainerToken = "081b120018038202040a020801"
)

// What the server answers (docs/hadoop-rpc.md#server-frames), as hex.
const (
	// SASLSuccess is a SIMPLE-only server's answer to NEGOTIATE.
	SASLSuccess = "000000120e08dfffffff0f100018093a004001021000"
	// FatalNoSimple is a Kerberos-only server's answer to a SIMPLE preamble.
	FatalNoSimple = "00000082800108ffffffff0f1002180922316f72672e6170616368652e6861646f6f702e73656375726974792e416363657373436f6e74726f6c457863657074696f6e2a3b53494d504c452061757468656e7469636174696f6e206973206e6f7420656e61626c65642e2020417661696c61626c653a5b4b45524245524f535d300f3a004001"
	// ErrorNotLeader is a follower SCM's ERROR reply to call 0.
	ErrorNotLeader = "000000bdbb0108001001180922356f72672e6170616368652e6861646f6f702e686464732e72617469732e5365727665724e6f744c6561646572457863657074696f6e2a6653434d205365727665723a73636d312873636d312e6578616d706c652e636f6d29206973206e6f7420746865206c65616465722e20537567676573746564206c6561646572206973205365727665723a73636d322e6578616d706c652e636f6d3a393836302e30013a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf4000"
	// GetContainerOK is the reply to GetContainer(1): container 1 on the example pipeline.
	GetContainerOK = "000000801a0800100018093a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf400064080228013a5e0a5c080110011a3e0a2435633365316630612d326234642d346536662d386139622d306331643265336634613562a2061508ef9cb5daa2e1879f5c10db94fdf1d283c3cd8a01200028003080d095ffbc313a036f6d314000480050015801"
	// EmptyTokenOK is the reply to GetContainerToken when tokens are off: the empty token.
	EmptyTokenOK = "0000002d1a0802100018093a10a0a1a2a3a4a5a6a7a8a9aaabacadaeaf400011081b280182020a0a080a0012001a002200"
	// ListBody is the body of the reply to ListPipelines: one pipeline of one DataNode.
	ListBody = "080928017295020a92020abe010a2433663235303465302d346638392d343164332d396130632d303330356538326333333031120931302e302e302e31311a0f646e312e6578616d706c652e636f6d220f0a0a5354414e44414c4f4e4510834d322433663235303465302d346638392d343164332d396130632d3033303565383263333330313a0d2f64656661756c742d7261636b40014800a2061508d383a5fc849cc1923f1081e6b0c1dee080869a01b206170a1508d383a5fc849cc1923f1081e6b0c1dee080869a011002180120012a3e0a2435633365316630612d326234642d346536662d386139622d306331643265336634613562a2061508ef9cb5daa2e1879f5c10db94fdf1d283c3cd8a0132004080d095ffbc315000"
)

// Bytes decodes vectors, concatenated, ignoring white space; it panics on a malformed constant,
// which only a bad edit can cause.
func Bytes(vs ...string) []byte {
	b, err := hex.DecodeString(strings.Join(strings.Fields(strings.Join(vs, "")), ""))
	if err != nil {
		panic("hadooprpcvectors: " + err.Error())
	}
	return b
}
