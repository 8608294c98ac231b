<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\Support;

use DistLock\Symfony\DistLockStore;

/** The throw-away server of the test run, and clients and stores on it. */
final class Redis
{
    /** redis://127.0.0.1:PORT from DISTLOCK_TEST_REDIS; the test fails (not skips) without it. */
    public static function uri(): string
    {
        $uri = getenv('DISTLOCK_TEST_REDIS');
        if ($uri === false || $uri === '') {
            throw new \RuntimeException('DISTLOCK_TEST_REDIS is not set (redis://127.0.0.1:PORT of a throw-away server)');
        }

        return $uri;
    }

    /** The masters of DISTLOCK_TEST_REDLOCK (comma-separated URIs); the test fails (not skips) without them. */
    public static function redlockUris(): array
    {
        $uris = getenv('DISTLOCK_TEST_REDLOCK');
        if ($uris === false || $uris === '') {
            throw new \RuntimeException('DISTLOCK_TEST_REDLOCK is not set (redis://127.0.0.1:PORT,... of three throw-away servers)');
        }

        return explode(',', $uris);
    }

    /** @param array<string, mixed> $options DistLock options */
    public static function client(array $options = []): \DistLock
    {
        return new \DistLock(self::uri(), $options + ['prefix' => 'sftest:']);
    }

    /** @param array<string, mixed> $options DistLock options */
    public static function store(array $options = [], float $initialTtl = 300.0): DistLockStore
    {
        return new DistLockStore(self::client($options), $initialTtl);
    }

    /**
     * The store in its default configuration: built from the server URI, so
     * with its own client and the prefix '' (the Redis key is the resource, as
     * with symfony's RedisStore).
     */
    public static function defaultStore(): DistLockStore
    {
        return new DistLockStore(self::uri());
    }

    /**
     * A connection to the same server ($uri: another), as symfony's RedisStore
     * takes one: phpredis, or where it is not built (PHP 8.5) Predis.
     */
    public static function connection(?string $uri = null): \Redis|\Predis\Client
    {
        $p = parse_url($uri ?? self::uri());
        if (!extension_loaded('redis')) {
            return new \Predis\Client(['host' => $p['host'], 'port' => (int) $p['port'], 'timeout' => 2.0]);
        }
        $r = new \Redis();
        $r->connect($p['host'], (int) $p['port'], 2.0);

        return $r;
    }

    /** connection() with phpredis's calls, to look at keys and counters (PredisRaw over Predis). */
    public static function raw(?string $uri = null): \Redis|PredisRaw
    {
        $c = self::connection($uri);

        return $c instanceof \Redis ? $c : new PredisRaw($c);
    }

    /** The type of $key as Redis names it ("string", "zset"...), from phpredis's int or Predis's name. */
    public static function typeName(\Redis|PredisRaw $raw, string $key): string
    {
        $t = $raw->type($key);
        if (is_string($t)) {
            return $t;
        }
        return [\Redis::REDIS_STRING => 'string', \Redis::REDIS_SET => 'set', \Redis::REDIS_LIST => 'list',
            \Redis::REDIS_ZSET => 'zset', \Redis::REDIS_HASH => 'hash', \Redis::REDIS_STREAM => 'stream'][$t] ?? 'none';
    }

    /**
     * Deletes the keys whose names start with $start (symfony's 7.x store tests
     * name their resources static::class . __METHOD__, the same on every run:
     * a run after a run on the same server would meet the last run's leases).
     */
    public static function deleteKeysStartingWith(string $start): void
    {
        $raw = self::raw();
        $it = null;
        while (($keys = $raw->scan($it, null, 1000)) !== false) {
            foreach ($keys as $k) {
                if (str_starts_with($k, $start)) {
                    $raw->del($k);
                }
            }
            if ($it === 0) {
                break;
            }
        }
    }

    /** A loopback port nothing listens on. */
    public static function deadPort(): int
    {
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $name = stream_socket_get_name($s, false);
        fclose($s);

        return (int) substr($name, strrpos($name, ':') + 1);
    }
}
