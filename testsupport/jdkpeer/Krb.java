// JAAS login for the JDK test peers: a Kerberos subject from a keytab or a ticket cache, with
// Krb5LoginModule configured in code (no JAAS file).
import java.util.HashMap;
import java.util.Map;
import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;

final class Krb {
  private Krb() {}

  /** Logs in: keytab != "" uses it for principal; otherwise the ticket cache ccache. */
  static Subject login(String principal, String keytab, String ccache, boolean initiator) throws Exception {
    Map<String, String> o = new HashMap<>();
    o.put("doNotPrompt", "true");
    o.put("isInitiator", Boolean.toString(initiator));
    o.put("storeKey", Boolean.toString(!initiator));
    if (!keytab.isEmpty()) {
      o.put("useKeyTab", "true");
      o.put("keyTab", keytab);
      o.put("principal", principal);
    } else {
      o.put("useTicketCache", "true");
      o.put("ticketCache", ccache);
    }
    Configuration conf = new Configuration() {
      @Override
      public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
        return new AppConfigurationEntry[] {
          new AppConfigurationEntry("com.sun.security.auth.module.Krb5LoginModule",
              AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, o)
        };
      }
    };
    LoginContext lc = new LoginContext("peer", new Subject(), null, conf);
    lc.login();
    return lc.getSubject();
  }
}
