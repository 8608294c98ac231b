<?php
declare(strict_types=1);

namespace Bench;

/** The floor of any acquire + release: two round trips (PING, PING) through phpredis. */
final class FloorAdapter implements Adapter
{
    private \Redis $r;

    public function __construct(string $host, int $port)
    {
        $this->r = redis_connect($host, $port);
    }

    public function id(): string { return 'floor'; }

    public function waits(): string { return '-'; }

    public function hasWaitLimit(): bool { return true; }

    public function warm(): void { $this->run('x', 1.0, 0.0, null); }

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool
    {
        $this->r->ping();
        try {
            if ($body !== null) {
                $body();
            }
        } finally {
            $this->r->ping();
        }
        return true;
    }
}
