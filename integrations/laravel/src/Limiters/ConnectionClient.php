<?php

declare(strict_types=1);

namespace DistLock\Laravel\Limiters;

use DistLock\Laravel\DistLockServiceProvider;
use DistLock\Laravel\InvalidConfigurationException;
use Illuminate\Container\Container;

/**
 * The \DistLock client that talks to the server of a live Laravel Redis
 * connection (phpredis or predis): its host or socket, port, database,
 * credentials and key prefix, read from the connection's own client. One
 * client per server, database and prefix in this process.
 *
 * @internal
 */
final class ConnectionClient
{
    /** @var array<string, \DistLock> keyed by a hash of URI and prefix (never the URI: it may hold a password) */
    private static array $clients = [];

    /**
     * @param \DistLock|object $redis a \DistLock client (returned as is), or a Laravel
     *   Redis connection (Illuminate\Redis\Connections\Connection: client() gives \Redis or
     *   \Predis\Client)
     *
     * @throws InvalidConfigurationException for anything else, saying what it got
     */
    public static function of(mixed $redis): \DistLock
    {
        if ($redis instanceof \DistLock) {
            return $redis;
        }
        $client = is_object($redis) && method_exists($redis, 'client') ? $redis->client() : $redis;
        if (class_exists(\Redis::class) && $client instanceof \Redis) {
            [$uri, $prefix] = self::fromPhpRedis($client);
        } elseif (class_exists(\Predis\Client::class) && $client instanceof \Predis\Client) {
            [$uri, $prefix] = self::fromPredis($client);
        } else {
            throw new InvalidConfigurationException(sprintf(
                'distlock: the concurrency limiter needs a \DistLock client or a Laravel Redis connection (phpredis or predis), got %s',
                get_debug_type($redis),
            ));
        }
        $id = hash('sha256', $uri . "\0" . $prefix);

        return self::$clients[$id] ??= DistLockServiceProvider::withEvents(Container::getInstance(), new \DistLock($uri, ['prefix' => $prefix]));
    }

    /** @return array{string, string} URI and key prefix */
    private static function fromPhpRedis(\Redis $c): array
    {
        $host = (string) $c->getHost();
        $auth = $c->getAuth();
        [$user, $pass] = is_array($auth) ? [(string) ($auth[0] ?? ''), (string) ($auth[1] ?? '')] : ['', (string) ($auth ?? '')];
        $db = (int) $c->getDbNum();
        $prefix = (string) ($c->getOption(\Redis::OPT_PREFIX) ?: '');
        if (str_starts_with($host, '/')) {
            return ['unix://' . $host . '?db=' . $db, $prefix];
        }
        $scheme = preg_match('#^(tls|ssl)://#', $host) ? 'rediss' : 'redis';

        return [self::uri($scheme, preg_replace('#^[a-z]+://#', '', $host), (int) $c->getPort(), $user, $pass, $db), $prefix];
    }

    /** @return array{string, string} URI and key prefix */
    private static function fromPredis(\Predis\Client $c): array
    {
        $p = $c->getConnection()->getParameters();
        $prefix = $c->getOptions()->prefix?->getPrefix() ?? '';
        $db = (int) ($p->database ?? 0);
        if (($p->scheme ?? 'tcp') === 'unix') {
            return ['unix://' . $p->path . '?db=' . $db, (string) $prefix];
        }
        $scheme = in_array($p->scheme ?? 'tcp', ['tls', 'rediss'], true) ? 'rediss' : 'redis';

        return [self::uri($scheme, (string) $p->host, (int) ($p->port ?? 6379), (string) ($p->username ?? ''), (string) ($p->password ?? ''), $db), (string) $prefix];
    }

    private static function uri(string $scheme, string $host, int $port, string $user, string $pass, int $db): string
    {
        $cred = $pass !== '' ? rawurlencode($user) . ':' . rawurlencode($pass) . '@' : '';
        if (str_contains($host, ':') && !str_starts_with($host, '[')) {
            $host = '[' . $host . ']';
        }

        return "$scheme://$cred$host:" . ($port > 0 ? $port : 6379) . "/$db";
    }
}
