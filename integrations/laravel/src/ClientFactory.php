<?php

declare(strict_types=1);

namespace DistLock\Laravel;

/**
 * Builds \DistLock clients from Laravel configuration: config/distlock.php
 * and the Redis connections of config/database.php.
 *
 * Building costs no round trip (the extension connects lazily). Every
 * failure is an InvalidConfigurationException that names the setting,
 * never its secret value.
 */
final class ClientFactory
{
    /**
     * @param array<string, mixed> $config   config('distlock')
     * @param array<string, mixed> $redis    config('database.redis')
     */
    public function __construct(private array $config, private array $redis)
    {
    }

    /**
     * The app-facing client: config('distlock.url') or, when null, the
     * Redis connection config('distlock.connection').
     *
     * @param array<string, mixed> $overrides options that replace the configured ones (e.g. prefix)
     * @throws InvalidConfigurationException
     */
    public function make(array $overrides = []): \DistLock
    {
        $url = $this->config['url'] ?? null;
        if (is_string($url) && $url !== '') {
            return $this->build($url, 'distlock.url (DISTLOCK_URL)', $this->options([], $overrides));
        }
        $name = (string) ($this->config['connection'] ?? 'default');
        [$uri, $fromRedis] = $this->fromRedisConnection($name);
        return $this->build($uri, "database.redis.$name", $this->options($fromRedis, $overrides));
    }

    /**
     * The cache store's client: config('distlock.url') when set (one setting,
     * DISTLOCK_URL, for every distlock client of the app), else the store's
     * Redis connection $connection, where Laravel's RedisStore would lock.
     *
     * @param array<string, mixed> $overrides
     * @throws InvalidConfigurationException
     */
    public function forStore(string $connection, array $overrides = []): \DistLock
    {
        $url = $this->config['url'] ?? null;
        if (is_string($url) && $url !== '') {
            return $this->build($url, 'distlock.url (DISTLOCK_URL)', $this->options([], $overrides));
        }
        [$uri, $fromRedis] = $this->fromRedisConnection($connection);
        return $this->build($uri, "database.redis.$connection", $this->options($fromRedis, $overrides));
    }

    /**
     * The key prefix phpredis/predis apply to every key on $connection
     * (its options.prefix, else database.redis.options.prefix, else its prefix).
     */
    public function redisKeyPrefix(string $connection): string
    {
        $conn = $this->redis[$connection] ?? [];
        return (string) ($conn['options']['prefix'] ?? $this->redis['options']['prefix'] ?? $conn['prefix'] ?? '');
    }

    /**
     * @return array{0: string, 1: array<string, mixed>} URI without credentials, and the
     *         username/password/database options taken from the connection
     * @throws InvalidConfigurationException
     */
    private function fromRedisConnection(string $name): array
    {
        $conn = $this->redis[$name] ?? null;
        if (!is_array($conn)) {
            throw new InvalidConfigurationException(
                "distlock: Redis connection \"$name\" is not defined in config/database.php (database.redis.$name); set distlock.connection or DISTLOCK_URL"
            );
        }
        if (isset($conn['url']) && is_string($conn['url']) && $conn['url'] !== '') {
            $parsed = parse_url(preg_replace('#^tcp://#', 'redis://', $conn['url']));
            if ($parsed === false || !isset($parsed['host'])) {
                throw new InvalidConfigurationException("distlock: database.redis.$name.url is not a valid Redis URL");
            }
            $conn = array_merge($conn, array_filter([
                'host' => $parsed['host'],
                'port' => $parsed['port'] ?? null,
                'username' => isset($parsed['user']) ? rawurldecode($parsed['user']) : null,
                'password' => isset($parsed['pass']) ? rawurldecode($parsed['pass']) : null,
                'database' => isset($parsed['path']) ? ltrim($parsed['path'], '/') : null,
                'scheme' => $parsed['scheme'] ?? null,
            ], fn ($v) => $v !== null && $v !== ''));
        }
        $host = (string) ($conn['host'] ?? '127.0.0.1');
        $scheme = (string) ($conn['scheme'] ?? 'tcp');
        if (preg_match('#^(tls|ssl|rediss)://#', $host) || in_array($scheme, ['tls', 'ssl', 'rediss'], true)) {
            $scheme = 'rediss';
            $host = preg_replace('#^[a-z]+://#', '', $host);
        } else {
            $scheme = 'redis';
            $host = preg_replace('#^(tcp|redis)://#', '', $host);
        }
        $options = [];
        foreach (['username', 'password'] as $k) {
            if (isset($conn[$k]) && $conn[$k] !== '') {
                $options[$k] = (string) $conn[$k];
            }
        }
        if (isset($conn['database']) && $conn['database'] !== '') {
            if (!is_numeric($conn['database'])) {
                throw new InvalidConfigurationException("distlock: database.redis.$name.database must be an integer");
            }
            $options['database'] = (int) $conn['database'];
        }
        if ($host !== '' && $host[0] === '/') {
            return ['unix://' . $host, $options];
        }
        if (str_contains($host, ':') && $host[0] !== '[') {
            $host = "[$host]"; // IPv6 literal
        }
        $port = $conn['port'] ?? 6379;
        if (!is_numeric($port)) {
            throw new InvalidConfigurationException("distlock: database.redis.$name.port must be a number");
        }
        $uri = sprintf('%s://%s:%d', $scheme, $host, (int) $port);
        return [$uri, $options];
    }

    /**
     * distlock.options without nulls, over the connection's credentials, under $overrides.
     *
     * @param array<string, mixed> $fromRedis
     * @param array<string, mixed> $overrides
     * @return array<string, mixed>
     */
    private function options(array $fromRedis, array $overrides): array
    {
        $configured = array_filter((array) ($this->config['options'] ?? []), fn ($v) => $v !== null);
        if (($configured['resources'] ?? null) === []) {
            unset($configured['resources']);
        }
        return array_merge($fromRedis, $configured, $overrides);
    }

    /**
     * @param array<string, mixed> $options
     * @throws InvalidConfigurationException
     */
    private function build(string $uri, string $setting, array $options): \DistLock
    {
        if (!extension_loaded('distlock')) {
            throw new InvalidConfigurationException(
                'distlock: the distlock PHP extension is not loaded (install it with "pie install distlock/distlock" or "pecl install distlock", then enable extension=distlock in php.ini)'
            );
        }
        try {
            new \DistLock($uri);
        } catch (\ValueError | \TypeError | \DistLock\Exception $e) {
            throw new InvalidConfigurationException(
                "distlock: invalid server in $setting: " . self::scrub($e->getMessage(), $options),
                0
            );
        }
        try {
            return new \DistLock($uri, $options);
        } catch (\ValueError | \TypeError | \DistLock\Exception $e) {
            throw new InvalidConfigurationException(
                'distlock: invalid option in distlock.options (or the credentials of ' . $setting . '): ' . self::scrub($e->getMessage(), $options),
                0
            );
        }
    }

    /** Removes any secret value from an extension message (defence in depth: it should hold none). */
    private static function scrub(string $message, array $options): string
    {
        foreach (['password', 'username'] as $k) {
            if (isset($options[$k]) && is_string($options[$k]) && strlen($options[$k]) >= 3) {
                $message = str_replace($options[$k], '***', $message);
            }
        }
        return preg_replace('#(rediss?://)[^@/]*@#', '$1***@', $message);
    }
}
