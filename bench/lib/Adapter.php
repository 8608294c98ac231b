<?php
declare(strict_types=1);

namespace Bench;

/** Thrown by an adapter factory when the build lacks an option (e.g. 'fair'). */
final class NotSupported extends \RuntimeException {}

/** The server lacks a command the implementation needs (the message says which). */
final class ServerLacks extends \RuntimeException {}

/**
 * One lock implementation under test.
 *
 * run() acquires $name with the implementation's own blocking API and its
 * default retry policy, waiting up to $wait seconds (where the API has a limit),
 * runs $body while holding the lock, and releases. It returns false when the
 * wait ran out. $body may be null (an empty critical section).
 */
interface Adapter
{
    /** Short id, e.g. "distlock". */
    public function id(): string;

    /** How the implementation waits, for the report. */
    public function waits(): string;

    public function run(string $name, float $ttl, float $wait, ?callable $body): bool;

    /** Whether run() gives up by itself when $wait runs out (symfony/lock 5.4 waits forever). */
    public function hasWaitLimit(): bool;

    /** Connect and load scripts so that the first measured cycle is not special. */
    public function warm(): void;
}

/* Runs $body (if any) while the lock is held, then releases it in all cases; true. */
function hold_and_release(?callable $body, callable $release): bool
{
    try {
        if ($body !== null) {
            $body();
        }
    } finally {
        $release();
    }
    return true;
}

/** A \Redis connected to the bench server, optionally named (CLIENT SETNAME). */
function redis_connect(string $host, int $port, ?string $clientName = null, bool $persistent = false): \Redis
{
    $r = new \Redis();
    $ok = $persistent ? $r->pconnect($host, $port, 2.0) : $r->connect($host, $port, 2.0);
    if (!$ok) {
        throw new \RuntimeException("cannot connect to redis at $host:$port");
    }
    $r->setOption(\Redis::OPT_READ_TIMEOUT, 60.0);
    if ($clientName !== null) {
        $r->client('setname', $clientName);
    }
    return $r;
}
