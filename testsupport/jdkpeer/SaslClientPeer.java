// A Hadoop RPC client whose SASL layer is the JDK's GSSAPI SaslClient, the code a Java Ozone
// client runs (Hadoop's SaslRpcClient creates it with Sasl.createSaslClient). It authenticates,
// sends the connection context and one call given as plain frames in hex, and prints the reply.
// Usage:
//   java -Djava.security.krb5.conf=K SaslClientPeer HOST PORT QOP PRINCIPAL KEYTAB CCACHE CONTEXTHEX CALLHEX
// (KEYTAB "" logs in from the ticket cache CCACHE.) Output: "QOP <qop>", then
// "REPLY <body hex>" or "ERROR <class>: <message>".
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.Socket;
import java.security.PrivilegedExceptionAction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;

public final class SaslClientPeer {
  public static void main(String[] args) throws Exception {
    Subject subject = Krb.login(args[3], args[4], args[5], true);
    try (Socket s = new Socket(args[0], Integer.parseInt(args[1]))) {
      DataInputStream in = new DataInputStream(s.getInputStream());
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.write(new byte[] {'h', 'r', 'p', 'c', 9, 0, (byte) 0xdf});
      send(out, Proto.sasl(Proto.NEGOTIATE, null));
      Proto.Fields neg = reply(in);
      byte[] auth = null;
      for (byte[] a : neg.all(4)) {
        if ("KERBEROS".equals(Proto.parse(a).str(1))) {
          auth = a;
        }
      }
      Proto.Fields chosen = Proto.parse(auth);
      Map<String, String> props = new HashMap<>();
      props.put(Sasl.QOP, args[2]);
      props.put(Sasl.SERVER_AUTH, "true");
      SaslClient sasl = Subject.doAs(subject, (PrivilegedExceptionAction<SaslClient>) () ->
          Sasl.createSaslClient(new String[] {"GSSAPI"}, null, chosen.str(3), chosen.str(4), props, null));
      send(out, Proto.sasl(Proto.INITIATE, evaluate(subject, sasl, new byte[0]), auth));
      while (true) {
        Proto.Fields m = reply(in);
        int state = (int) m.num(2, -1);
        if (state == Proto.SUCCESS) {
          break;
        }
        send(out, Proto.sasl(Proto.RESPONSE, evaluate(subject, sasl, m.bytes(3))));
      }
      String qop = (String) sasl.getNegotiatedProperty(Sasl.QOP);
      System.out.println("QOP " + qop);
      boolean wrap = !"auth".equals(qop);
      for (String hex : new String[] {args[6], args[7]}) {
        byte[] frame = Proto.unhex(hex);
        if (wrap) {
          frame = Proto.frame(saslHeader(), Proto.sasl(Proto.WRAP, sasl.wrap(frame, 0, frame.length)));
        }
        Proto.write(out, frame);
      }
      byte[] frame = Proto.readFrame(in);
      if (wrap) {
        byte[] tok = Proto.parse(Proto.delimited(frame).get(1)).bytes(3);
        byte[] plain = sasl.unwrap(tok, 0, tok.length);
        frame = java.util.Arrays.copyOfRange(plain, 4, plain.length);
      }
      List<byte[]> parts = Proto.delimited(frame);
      Proto.Fields h = Proto.parse(parts.get(0));
      if (h.num(2, 0) != 0) {
        System.out.println("ERROR " + h.str(4) + ": " + h.str(5));
      } else {
        System.out.println("REPLY " + Proto.hex(parts.get(1)));
      }
    }
  }

  private static byte[] evaluate(Subject subject, SaslClient sasl, byte[] challenge) throws Exception {
    byte[] r = Subject.doAs(subject, (PrivilegedExceptionAction<byte[]>) () -> sasl.evaluateChallenge(challenge));
    return r == null ? new byte[0] : r;
  }

  private static byte[] saslHeader() {
    return new Proto.Msg().varint(1, 2).varint(2, 0).sint(3, -33).bytes(4, new byte[0]).sint(5, -1).toBytes();
  }

  private static void send(DataOutputStream out, byte[] sasl) throws Exception {
    Proto.write(out, Proto.frame(saslHeader(), sasl));
  }

  /** Reads one SASL reply; a FATAL reply is printed and ends the program. */
  private static Proto.Fields reply(DataInputStream in) throws Exception {
    List<byte[]> parts = Proto.delimited(Proto.readFrame(in));
    Proto.Fields h = Proto.parse(parts.get(0));
    if (h.num(2, 0) != 0) {
      System.out.println("ERROR " + h.str(4) + ": " + h.str(5));
      System.exit(3);
    }
    return Proto.parse(parts.get(1));
  }
}
