/**
 * DynamoDB Local bound to 127.0.0.1. Its command line has no bind address: `ServerRunner` builds a
 * Jetty server with `new Server(port)`, which listens on every interface, so anyone on the network
 * could read the tables. Jetty's own `XmlConfiguration` (in DynamoDB Local's lib folder) is the
 * launcher instead: the XML below builds the same server from the same arguments, sets the host of
 * its one connector to 127.0.0.1, and starts it. It needs nothing but a Java runtime (no compiler),
 * and skips DynamoDB Local's telemetry.
 */

/** The main class to run (on DynamoDB Local's class path) with the launcher file as its argument. */
export const LAUNCHER_MAIN_CLASS = 'org.eclipse.jetty.xml.XmlConfiguration';

export const LOOPBACK_HOST = '127.0.0.1';

/** The launcher for DynamoDB Local's command-line `args` (`-port`, `-inMemory`, `-dbPath`, …). */
export function loopbackLauncherXml(args: readonly string[]): string {
  const items = args.map((arg) => `        <Item>${escapeXml(arg)}</Item>`).join('\n');
  return `<?xml version="1.0"?>
<!DOCTYPE Configure PUBLIC "-//Jetty//Configure//EN" "http://www.eclipse.org/jetty/configure_9_3.dtd">
<Configure class="java.lang.Object">
  <!-- DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args) -->
  <Call id="proxy" class="com.amazonaws.services.dynamodbv2.local.main.ServerRunner" name="createServerFromCommandLineArgs">
    <Arg>
      <Array type="java.lang.String">
${items}
      </Array>
    </Arg>
  </Call>
  <!-- org.eclipse.jetty.server.Server jetty = proxy.server (a private field) -->
  <Call class="java.lang.Class" name="forName">
    <Arg>com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer</Arg>
    <Call name="getDeclaredField">
      <Arg>server</Arg>
      <Call name="setAccessible"><Arg type="boolean">true</Arg></Call>
      <Call id="jetty" name="get"><Arg><Ref refid="proxy"/></Arg></Call>
    </Call>
  </Call>
  <!-- jetty.getConnectors()[0].setHost("${LOOPBACK_HOST}") -->
  <Ref refid="jetty"><Call id="connectors" name="getConnectors"/></Ref>
  <Call class="java.lang.reflect.Array" name="get">
    <Arg><Ref refid="connectors"/></Arg>
    <Arg type="int">0</Arg>
    <Set name="host">${LOOPBACK_HOST}</Set>
  </Call>
  <!-- proxy.safeStart(): jetty.start(), without the telemetry of start() -->
  <Ref refid="proxy"><Call name="safeStart"/></Ref>
</Configure>
`;
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}
