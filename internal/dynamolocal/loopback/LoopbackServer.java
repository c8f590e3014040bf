// LoopbackServer starts DynamoDB Local listening on 127.0.0.1 only. The
// jar's own ServerRunner has no option to choose the interface and binds
// every one; this starts the same server from the same command line and
// sets each connector's host to the loopback address before it starts.
// Package dynamolocal compiles it against the pinned DynamoDBLocal.jar.
import java.lang.reflect.Field;

import org.eclipse.jetty.server.AbstractNetworkConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;

import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

public final class LoopbackServer {
    public static void main(String[] args) throws Exception {
        DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
        Field field = DynamoDBProxyServer.class.getDeclaredField("server");
        field.setAccessible(true);
        Server server = (Server) field.get(proxy);
        Connector[] connectors = server.getConnectors();
        if (connectors.length == 0) {
            throw new IllegalStateException("DynamoDB Local has no connector to bind to 127.0.0.1");
        }
        for (Connector c : connectors) {
            if (!(c instanceof AbstractNetworkConnector)) {
                throw new IllegalStateException("DynamoDB Local connector " + c + " cannot be bound to 127.0.0.1");
            }
            ((AbstractNetworkConnector) c).setHost("127.0.0.1");
        }
        proxy.start();
    }
}
