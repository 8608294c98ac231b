<?php
declare(strict_types=1);

namespace Bench;

/**
 * The hand-written phpredis lock most code bases carry: SET key token NX PX,
 * release by EVALSHA of a compare-and-delete script (EVAL on NOSCRIPT),
 * 128-bit random token. Waiting: retry every 50 ms until the deadline (the
 * usual "retryDelay = 50 ms" recipe).
 */
final class PhpRedisAdapter implements Adapter
{
    private const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
    private const RETRY_US = 50000;

    private \Redis $r;
    private string $sha;

    public function __construct(string $host, int $port)
    {
        $this->r = redis_connect($host, $port);
        $this->sha = sha1(self::RELEASE);
    }

    public function id(): string { return 'phpredis'; }

    public function waits(): string { return 'SET NX PX retried every 50 ms'; }

    public function hasWaitLimit(): bool { return true; }

    public function warm(): void
    {
        $this->r->script('load', self::RELEASE);
        $this->run('bench:warm:phpredis', 5.0, 1.0, null);
    }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        $token = bin2hex(random_bytes(16));
        $ttlMs = (int) ceil($ttl * 1000);
        $deadline = hrtime(true) + (int) ($wait * 1e9);
        while (!$this->r->set($name, $token, ['nx', 'px' => $ttlMs])) {
            $left = intdiv($deadline - hrtime(true), 1000);
            if ($left <= 0) {
                return false;
            }
            usleep(min(self::RETRY_US, $left));
        }
        try {
            if ($body !== null) {
                $body();
            }
        } finally {
            $res = $this->r->evalSha($this->sha, [$name, $token], 1);
            if ($res === false && str_starts_with((string) $this->r->getLastError(), 'NOSCRIPT')) {
                $this->r->clearLastError();
                $this->r->eval(self::RELEASE, [$name, $token], 1);
            }
        }
        return true;
    }
}
