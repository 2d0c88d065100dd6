// Minimal protobuf and Hadoop RPC framing for the JDK test peers: varints, fields, delimited
// messages and frames. It knows only what the peers need (no protobuf-java dependency).
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class Proto {
  private Proto() {}

  /** A message being written, field by field. */
  static final class Msg {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Msg varint(int field, long v) {
      rawVarint(out, (long) field << 3);
      rawVarint(out, v);
      return this;
    }

    Msg sint(int field, int v) {
      return varint(field, ((v << 1) ^ (v >> 31)) & 0xffffffffL);
    }

    Msg bytes(int field, byte[] b) {
      rawVarint(out, ((long) field << 3) | 2);
      rawVarint(out, b.length);
      out.write(b, 0, b.length);
      return this;
    }

    Msg string(int field, String s) {
      return bytes(field, s.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    byte[] toBytes() {
      return out.toByteArray();
    }
  }

  static void rawVarint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** A decoded message: field number to values (Long for varints, byte[] for the rest). */
  static final class Fields {
    final Map<Integer, List<Object>> values = new HashMap<>();

    long num(int field, long dflt) {
      List<Object> l = values.get(field);
      return l == null ? dflt : (Long) l.get(l.size() - 1);
    }

    int sint(int field, int dflt) {
      long v = num(field, Long.MIN_VALUE);
      return v == Long.MIN_VALUE ? dflt : (int) ((v >>> 1) ^ -(v & 1));
    }

    byte[] bytes(int field) {
      List<Object> l = values.get(field);
      return l == null ? null : (byte[]) l.get(l.size() - 1);
    }

    List<byte[]> all(int field) {
      List<byte[]> out = new ArrayList<>();
      for (Object o : values.getOrDefault(field, new ArrayList<>())) {
        out.add((byte[]) o);
      }
      return out;
    }

    String str(int field) {
      byte[] b = bytes(field);
      return b == null ? null : new String(b, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  static Fields parse(byte[] b) {
    Fields f = new Fields();
    int[] pos = {0};
    while (pos[0] < b.length) {
      long key = readVarint(b, pos);
      int field = (int) (key >>> 3);
      Object v;
      switch ((int) (key & 7)) {
        case 0: v = readVarint(b, pos); break;
        case 2: {
          int n = (int) readVarint(b, pos);
          byte[] x = new byte[n];
          System.arraycopy(b, pos[0], x, 0, n);
          pos[0] += n;
          v = x;
          break;
        }
        case 1: pos[0] += 8; continue;
        case 5: pos[0] += 4; continue;
        default: throw new IllegalArgumentException("wire type " + (key & 7));
      }
      f.values.computeIfAbsent(field, k -> new ArrayList<>()).add(v);
    }
    return f;
  }

  static long readVarint(byte[] b, int[] pos) {
    long v = 0;
    for (int shift = 0; ; shift += 7) {
      int c = b[pos[0]++] & 0xff;
      v |= (long) (c & 0x7f) << shift;
      if ((c & 0x80) == 0) {
        return v;
      }
    }
  }

  /** Splits a frame into its length-delimited messages. */
  static List<byte[]> delimited(byte[] frame) {
    List<byte[]> out = new ArrayList<>();
    int[] pos = {0};
    while (pos[0] < frame.length) {
      int n = (int) readVarint(frame, pos);
      byte[] x = new byte[n];
      System.arraycopy(frame, pos[0], x, 0, n);
      pos[0] += n;
      out.add(x);
    }
    return out;
  }

  /** Builds a frame: 4-byte length, then each message length-delimited. */
  static byte[] frame(byte[]... msgs) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] m : msgs) {
      rawVarint(body, m.length);
      body.write(m, 0, m.length);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int n = body.size();
    out.write(n >>> 24);
    out.write(n >>> 16);
    out.write(n >>> 8);
    out.write(n);
    out.write(body.toByteArray(), 0, n);
    return out.toByteArray();
  }

  static byte[] readFrame(DataInputStream in) throws IOException {
    int n = in.readInt();
    byte[] b = new byte[n];
    in.readFully(b);
    return b;
  }

  static void write(DataOutputStream out, byte[] b) throws IOException {
    out.write(b);
    out.flush();
  }

  static byte[] unhex(String s) {
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }

  static String hex(byte[] b) {
    StringBuilder sb = new StringBuilder();
    for (byte x : b) {
      sb.append(String.format("%02x", x & 0xff));
    }
    return sb.toString();
  }

  // SASL states (RpcHeader.proto RpcSaslProto.SaslState).
  static final int SUCCESS = 0, NEGOTIATE = 1, INITIATE = 2, CHALLENGE = 3, RESPONSE = 4, WRAP = 5;

  /** RpcSaslProto{state, token?, auths...}. */
  static byte[] sasl(int state, byte[] token, byte[]... auths) {
    Msg m = new Msg().varint(2, state);
    if (token != null) {
      m.bytes(3, token);
    }
    for (byte[] a : auths) {
      m.bytes(4, a);
    }
    return m.toBytes();
  }
}
