// Package echo is the echo session layer: the one place where an Echo workload's options, the
// SCM lookup, the container token, the DataNode clients, the prepared requests and the
// measurement of a call meet. Both front ends are thin on top of it — `dnecho freon dn-echo`
// turns its flags into a Spec, the k6/x/dnecho JavaScript module its Client options — so a mode
// or option added here appears in both.
//
// The data path, top to bottom:
//
//	Spec (Set parses each option's string form; Validate names the Field that is wrong)
//	  → Open: lookup (config → SCM GetContainer + ListPipelines, or GetContainerWithPipeline;
//	          GetContainerToken when the configuration enables container tokens)
//	  → Session: a pool of clients (freon's --clients, made on first use): gRPC clients
//	             (ozone/datanode), or Raft clients (ozone/ratis) with Transport ratis; and
//	             the Spec's Request encoded once per client (a Call)
//	  → Session.Echo / Call.Echo(ctx, worker) → datanode.Client.Echo or ratis.Client.Echo
//	             → Result
//
// Over Ratis a read-only Request is a Raft read the leader answers, any other a Raft write that
// is logged, replicated and applied on every replica (Call.Mode says which). Writes are refused
// unless SCM lists the container OPEN on its pipeline (UnsafeWriteError; Spec.UnsafeWrite).
//
// # The measurement
//
// Result.Latency is the one interval every front end records for a call. It is the interval
// Java freon's `rpc-payload` timer covers (Ozone: hadoop-ozone/freon/src/main/java/org/apache/
// hadoop/ozone/freon/DNRPCLoadGenerator.java, sendRPCReq: timer.time around
// ContainerProtocolCalls.echo): it starts before the call waits for a slot of the client's
// outstanding-request limit (XceiverClientGrpc.sendCommandAsync acquires its semaphore inside
// the timed block) and ends when the response of the last attempt arrives (the Java client's
// reply future completes in onNext), so it includes failed attempts on other pipeline members
// and excludes the end-of-stream read that follows a response. A call that fails without a
// response ends when its last attempt fails. Building the request is not included: it is
// encoded once per session, where Java builds it inside the timer (a few microseconds).
//
// Interrupted calls (the caller's context ended) are not measurements: Result.Interrupted says
// so, and the front ends drop them.
package echo
