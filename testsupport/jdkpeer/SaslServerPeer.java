// A Hadoop RPC server whose SASL layer is the JDK's GSSAPI SaslServer, the code a secure SCM
// runs (Hadoop's SaslRpcServer creates it with Sasl.createSaslServer("GSSAPI", ...)). It answers
// each call with the canned reply body the test left in <replyDir>/<cmdType>.bin, cmdType being
// field 1 of the request. Usage:
//   java -Djava.security.krb5.conf=K SaslServerPeer PRINCIPAL KEYTAB QOP REPLYDIR
// It prints "PORT <n>" once listening and "USER <principal> QOP <qop>" per authenticated
// connection.
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivilegedExceptionAction;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.auth.callback.Callback;
import javax.security.sasl.AuthorizeCallback;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslServer;

public final class SaslServerPeer {
  private final Subject subject;
  private final String protocol;
  private final String host;
  private final String qop;
  private final Path replies;

  private SaslServerPeer(Subject subject, String principal, String qop, Path replies) {
    this.subject = subject;
    String name = principal.split("@")[0];
    this.protocol = name.split("/")[0];
    this.host = name.split("/")[1];
    this.qop = qop;
    this.replies = replies;
  }

  public static void main(String[] args) throws Exception {
    Subject s = Krb.login(args[0], args[1], "", false);
    SaslServerPeer peer = new SaslServerPeer(s, args[0], args[2], Path.of(args[3]));
    ServerSocket ss = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
    System.out.println("PORT " + ss.getLocalPort());
    System.out.flush();
    while (true) {
      Socket c = ss.accept();
      new Thread(() -> {
        try (c) {
          peer.serve(c);
        } catch (Exception e) {
          System.out.println("CONNECTION " + e);
          System.out.flush();
        }
      }).start();
    }
  }

  private SaslServer newSaslServer() throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put(Sasl.QOP, qop);
    props.put(Sasl.SERVER_AUTH, "true");
    return Subject.doAs(subject, (PrivilegedExceptionAction<SaslServer>) () ->
        Sasl.createSaslServer("GSSAPI", protocol, host, props, callbacks -> {
          for (Callback cb : callbacks) {
            if (cb instanceof AuthorizeCallback) {
              AuthorizeCallback ac = (AuthorizeCallback) cb;
              ac.setAuthorized(ac.getAuthenticationID().equals(ac.getAuthorizationID()));
            }
          }
        }));
  }

  private void serve(Socket c) throws Exception {
    DataInputStream in = new DataInputStream(c.getInputStream());
    DataOutputStream out = new DataOutputStream(c.getOutputStream());
    byte[] pre = new byte[7];
    in.readFully(pre);
    if (!Arrays.equals(Arrays.copyOf(pre, 4), "hrpc".getBytes()) || pre[4] != 9 || pre[6] != (byte) 0xdf) {
      throw new IllegalStateException("bad preamble " + Proto.hex(pre));
    }
    SaslServer sasl = newSaslServer();
    while (!sasl.isComplete()) {
      Proto.Fields m = saslMessage(Proto.readFrame(in));
      int state = (int) m.num(2, -1);
      byte[] reply;
      if (state == Proto.NEGOTIATE) {
        byte[] auth = new Proto.Msg().string(1, "KERBEROS").string(2, "GSSAPI").string(3, protocol).string(4, host).toBytes();
        reply = Proto.sasl(Proto.NEGOTIATE, null, auth);
      } else {
        byte[] tok = m.bytes(3);
        byte[] answer = Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () ->
            sasl.evaluateResponse(tok == null ? new byte[0] : tok));
        reply = Proto.sasl(sasl.isComplete() ? Proto.SUCCESS : Proto.CHALLENGE, answer);
      }
      Proto.write(out, Proto.frame(saslHeader(), reply));
    }
    String negotiated = (String) sasl.getNegotiatedProperty(Sasl.QOP);
    System.out.println("USER " + sasl.getAuthorizationID() + " QOP " + negotiated);
    System.out.flush();
    boolean wrap = !"auth".equals(negotiated);
    ByteArrayOutputStream plain = new ByteArrayOutputStream();
    while (true) {
      byte[] frame = Proto.readFrame(in);
      if (!wrap) {
        handle(frame, out, sasl, false);
        continue;
      }
      Proto.Fields m = saslMessage(frame);
      if (m.num(2, -1) != Proto.WRAP) {
        throw new IllegalStateException("expected WRAP");
      }
      byte[] tok = m.bytes(3);
      plain.write(sasl.unwrap(tok, 0, tok.length));
      byte[] buf = plain.toByteArray();
      int used = 0;
      while (buf.length - used >= 4) {
        int n = ((buf[used] & 0xff) << 24) | ((buf[used + 1] & 0xff) << 16) | ((buf[used + 2] & 0xff) << 8) | (buf[used + 3] & 0xff);
        if (buf.length - used - 4 < n) {
          break;
        }
        handle(Arrays.copyOfRange(buf, used + 4, used + 4 + n), out, sasl, true);
        used += 4 + n;
      }
      plain.reset();
      plain.write(buf, used, buf.length - used);
    }
  }

  private static Proto.Fields saslMessage(byte[] frame) {
    java.util.List<byte[]> parts = Proto.delimited(frame);
    int callId = Proto.parse(parts.get(0)).sint(3, 0);
    if (callId != -33) {
      throw new IllegalStateException("expected a SASL packet, got callId " + callId);
    }
    return Proto.parse(parts.get(1));
  }

  // The response header of a SASL packet: callId -33 as uint32, SUCCESS, version 9, empty client id.
  private static byte[] saslHeader() {
    return new Proto.Msg().varint(1, 0xffffffdfL).varint(2, 0).varint(3, 9).bytes(7, new byte[0]).sint(8, -1).toBytes();
  }

  private void handle(byte[] frame, DataOutputStream out, SaslServer sasl, boolean wrap) throws Exception {
    java.util.List<byte[]> parts = Proto.delimited(frame);
    Proto.Fields h = Proto.parse(parts.get(0));
    int callId = h.sint(3, 0);
    if (callId < 0) {
      return; // connection context, ping
    }
    long cmd = Proto.parse(parts.get(2)).num(1, -1);
    byte[] body = Files.readAllBytes(replies.resolve(cmd + ".bin"));
    byte[] header = new Proto.Msg().varint(1, callId).varint(2, 0).varint(3, 9).bytes(7, h.bytes(4)).sint(8, h.sint(5, -1)).toBytes();
    byte[] resp = Proto.frame(header, body);
    if (wrap) {
      byte[] tok = sasl.wrap(resp, 0, resp.length);
      resp = Proto.frame(saslHeader(), Proto.sasl(Proto.WRAP, tok));
    }
    synchronized (out) {
      Proto.write(out, resp);
    }
  }
}
