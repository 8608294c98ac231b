<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry;

use OpenTelemetry\SemConv\Attributes\ServerAttributes as Server;

/**
 * server.address / server.port of an event's $server ("host:port",
 * "[v6]:port" or "unix:/path"), parsed once per distinct string: a process
 * talks to a handful of servers, and the event path must stay cheap.
 */
final class ServerAttributes
{
    /** @var array<string, array<string, string|int>> */
    private array $cache = [];

    /**
     * @param string|null $server the Event's $server; null when no node answered
     * @return array<string, string|int> server.address (and server.port for TCP); [] for null
     */
    public function of(?string $server): array
    {
        if ($server === null) {
            return [];
        }

        return $this->cache[$server] ??= self::parse($server);
    }

    /** @return array<string, string|int> */
    private static function parse(string $server): array
    {
        // A unix socket: the conventions put the socket's path in server.address, with no port.
        if (str_starts_with($server, 'unix:')) {
            return [Server::SERVER_ADDRESS => substr($server, 5)];
        }
        $colon = strrpos($server, ':');
        $port = $colon === false ? '' : substr($server, $colon + 1);
        if ($port === '' || strspn($port, '0123456789') !== strlen($port)) {
            return [Server::SERVER_ADDRESS => $server];
        }
        $host = substr($server, 0, $colon);
        if (str_starts_with($host, '[') && str_ends_with($host, ']')) {
            $host = substr($host, 1, -1);
        }

        return [Server::SERVER_ADDRESS => $host, Server::SERVER_PORT => (int) $port];
    }
}
