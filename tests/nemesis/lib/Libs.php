<?php
declare(strict_types=1);

namespace Nemesis;

/**
 * One lock library under the campaign. acquire() waits with the library's own
 * blocking API (null: its wait ran out; an exception: it failed), release()
 * says whether the library reported the lease as still ours. Every library
 * gets the same timeouts towards Redis: connect 0.5 s, read 0.5 s.
 */
interface Lib
{
    /** Seconds a grant's lease lasts at the server (without renewal). */
    public function lease(): float;

    /** Seconds acquire() waits for a held lock before giving up (INF: no limit). */
    public function wait(): float;

    /** Seconds one request may take before the library gives up on it (connect + read). */
    public function timeout(): float;

    /** Whether grants carry fencing tokens. */
    public function fenced(): bool;

    public function acquire(string $name): ?object;

    /** The owner token (the key's value), when the library exposes it. */
    public function token(object $h): ?string;

    public function fence(object $h): ?int;

    /** @return bool true: released as ours; false: the library says the lease was no longer ours */
    public function release(object $h): bool;

    /** Renews the lease: true, false when the library says it was lost, null when it has no refresh. */
    public function refresh(object $h): ?bool;

    /** After an exception: start again from a fresh client (the peers); distlock recovers by itself. */
    public function reset(): void;

    /** Lease-lost signals counted by the library itself (distlock's watchdog), or 0. */
    public function lostSignals(): int;

    /**
     * The primitives the library has beyond the mutex, a subset of PRIMITIVES
     * without 'mutex' ('rw': shared and exclusive leases of one name; 'semaphore':
     * permits of a limit; 'multi': all of several names or none).
     */
    public function primitives(): array;

    /** Whether a semaphore holder may take several permits at once (false: one each). */
    public function severalPermits(): bool;

    /** A shared lease of $name (or, $exclusive, its writer's lease): as acquire(). */
    public function acquireShared(string $name, bool $exclusive): ?object;

    /** $permits of $name's $limit permits: as acquire(). */
    public function acquirePermits(string $name, int $limit, int $permits): ?object;

    /** Every name of $names or none: one handle per name, in the order of $names; null when the wait ran out. */
    public function acquireAll(array $names): ?array;

    /** Releases a multi-lock's handles: true when every one was still ours. */
    public function releaseAll(array $hs): bool;

    /** The name a handle holds, as the library reports it (a multi-lock's members), or null. */
    public function nameOf(object $h): ?string;
}

/** The primitives the campaign knows, and how often a worker's cycle draws each (weights). */
const PRIMITIVES = ['mutex' => 3, 'rw' => 3, 'semaphore' => 2, 'multi' => 2];

/** A worker's kind of grant (its history's "k", its state file) => the primitive it belongs to. */
const PRIM_OF = ['mutex' => 'mutex', 'multi' => 'multi', 'shared' => 'rw', 'exclusive' => 'rw', 'permits' => 'semaphore'];

/** For the peers: what they do not have (primitives() says so; the workload never calls these). */
trait MutexOnly
{
    public function primitives(): array { return []; }
    public function severalPermits(): bool { return false; }
    public function acquireShared(string $name, bool $exclusive): ?object { throw new \LogicException('no shared leases'); }
    public function acquirePermits(string $name, int $limit, int $permits): ?object { throw new \LogicException('no semaphore'); }
    public function acquireAll(array $names): ?array { throw new \LogicException('no multi-lock'); }
    public function releaseAll(array $hs): bool { throw new \LogicException('no multi-lock'); }
    public function nameOf(object $h): ?string { return null; }
}

const CONNECT_TIMEOUT = 0.5;
const READ_TIMEOUT = 0.5;

function phpredis(string $host, int $port): \Redis
{
    $r = new \Redis();
    if (!@$r->connect($host, $port, CONNECT_TIMEOUT)) {
        throw new \RedisException("cannot connect to $host:$port");
    }
    $r->setOption(\Redis::OPT_READ_TIMEOUT, READ_TIMEOUT);
    return $r;
}

/**
 * distlock: lock($name, $ttl, $wait) with the watchdog (renews every ttl/3),
 * fencing tokens (not with Redlock, which has none), on_lost ignore (the loss
 * is read from release()'s false).
 * $topo: ['kind' => single|sentinel|cluster|redlock, 'uris' => [...], 'options' => [...]]
 */
final class DistLockLib implements Lib
{
    private \DistLock $dl;
    private array $opts;

    public function __construct(private array $topo, private float $ttl = 2.0, private float $waitS = 2.0)
    {
        $this->opts = ($topo['options'] ?? []) + [
            'ttl' => $ttl, 'wait' => $waitS, 'timeout' => READ_TIMEOUT, 'connect_timeout' => CONNECT_TIMEOUT,
            'watchdog' => true, 'on_lost' => 'ignore', 'fencing' => ($topo['kind'] ?? '') !== 'redlock',
            'defer_release' => false,
        ];
        $this->reset();
    }

    public function reset(): void
    {
        $uris = $this->topo['uris'];
        $this->dl = new \DistLock(count($uris) === 1 ? $uris[0] : $uris, $this->opts);
    }

    public function lease(): float { return $this->ttl; }
    public function wait(): float { return $this->waitS; }
    public function timeout(): float { return CONNECT_TIMEOUT + READ_TIMEOUT; }
    public function fenced(): bool { return (bool) $this->opts['fencing']; }

    public function acquire(string $name): ?object
    {
        try {
            return $this->dl->lock($name, $this->ttl, $this->waitS);
        } catch (\DistLock\LockTimeoutException) {
            return null;
        }
    }

    public function token(object $h): ?string { return $h->token(); }
    public function fence(object $h): ?int { return $h->fencingToken(); }
    public function release(object $h): bool { return $h->release(); }
    public function refresh(object $h): ?bool { return $h->refresh(); }
    public function lostSignals(): int { return (int) ($this->dl->stats()['lost'] ?? 0); }

    /** Redlock runs the mutex only (docs/primitives.md): the other kinds are refused there. */
    public function primitives(): array
    {
        return ($this->topo['kind'] ?? '') === 'redlock' ? [] : ['rw', 'semaphore', 'multi'];
    }

    public function severalPermits(): bool { return true; }

    public function acquireShared(string $name, bool $exclusive): ?object
    {
        try {
            return $exclusive ? $this->dl->lockExclusive($name, $this->ttl, $this->waitS)
                : $this->dl->lockShared($name, $this->ttl, $this->waitS);
        } catch (\DistLock\LockTimeoutException) {
            return null;
        }
    }

    public function acquirePermits(string $name, int $limit, int $permits): ?object
    {
        try {
            return $this->dl->acquirePermits($name, $limit, $permits, $this->ttl, $this->waitS);
        } catch (\DistLock\LockTimeoutException) {
            return null;
        }
    }

    public function acquireAll(array $names): ?array
    {
        try {
            return $this->dl->lockAll($names, $this->ttl, $this->waitS);
        } catch (\DistLock\LockTimeoutException) {
            return null;
        }
    }

    public function releaseAll(array $hs): bool { return $this->dl->releaseAll($hs) === count($hs); }
    public function nameOf(object $h): ?string { return $h->name(); }
}

/** Laravel 8 (php-illuminate-cache): PhpRedisLock, block($seconds) retrying every 250 ms; whole seconds. */
final class LaravelLib implements Lib
{
    private $conn;

    public function __construct(private string $host, private int $port, private int $ttl = 2, private int $waitS = 2)
    {
        require_once 'Illuminate/Cache/autoload.php';
        require_once 'Illuminate/Redis/autoload.php';
        $this->reset();
    }

    public function reset(): void
    {
        $this->conn = new \Illuminate\Redis\Connections\PhpRedisConnection(phpredis($this->host, $this->port), null, []);
    }

    public function lease(): float { return $this->ttl; }
    public function wait(): float { return $this->waitS; }
    public function timeout(): float { return CONNECT_TIMEOUT + READ_TIMEOUT; }
    public function fenced(): bool { return false; }

    public function acquire(string $name): ?object
    {
        $lock = new \Illuminate\Cache\PhpRedisLock($this->conn, $name, $this->ttl);
        try {
            $lock->block($this->waitS);
        } catch (\Illuminate\Contracts\Cache\LockTimeoutException) {
            return null;
        }
        return $lock;
    }

    public function token(object $h): ?string { return $h instanceof LaravelSlot ? $h->id : $h->owner(); }
    public function fence(object $h): ?int { return null; }

    public function release(object $h): bool
    {
        if ($h instanceof LaravelSlot) {
            // ConcurrencyLimiter::release() returns nothing: the library never says a slot was lost
            $h->limiter->close($h->slot, $h->id);
            return true;
        }
        return (bool) $h->release();
    }

    public function refresh(object $h): ?bool { return null; }
    public function lostSignals(): int { return 0; }

    /** Redis::funnel() (ConcurrencyLimiter): a semaphore of one slot per holder; no shared lease, no multi-lock. */
    public function primitives(): array { return ['semaphore']; }
    public function severalPermits(): bool { return false; }
    public function acquireShared(string $name, bool $exclusive): ?object { throw new \LogicException('no shared leases'); }

    /**
     * funnel($name)->limit($limit)->releaseAfter(lease)->block(wait): ConcurrencyLimiter::block()'s own
     * loop (an attempt every 250 ms until time() has passed the wait), its acquire and release reached
     * through a subclass so that the workload can record them apart.
     */
    public function acquirePermits(string $name, int $limit, int $permits): ?object
    {
        if (!class_exists(OpenConcurrencyLimiter::class, false)) {
            eval('namespace Nemesis; final class OpenConcurrencyLimiter extends \Illuminate\Redis\Limiters\ConcurrencyLimiter {
                public function open($id) { return $this->acquire($id); }
                public function close($slot, $id): void { $this->release($slot, $id); } }');
        }
        $lim = new OpenConcurrencyLimiter($this->conn, $name, $limit, $this->ttl);
        $id = \Illuminate\Support\Str::random(20);
        $starting = time();
        while (!$slot = $lim->open($id)) {
            if (time() - $this->waitS >= $starting) {
                return null;
            }
            usleep(250 * 1000);
        }
        return new LaravelSlot($lim, (string) $slot, $id);
    }

    public function acquireAll(array $names): ?array { throw new \LogicException('no multi-lock'); }
    public function releaseAll(array $hs): bool { throw new \LogicException('no multi-lock'); }
    public function nameOf(object $h): ?string { return null; }
}

/** A slot of Laravel's ConcurrencyLimiter, held under $id. */
final class LaravelSlot
{
    public function __construct(public object $limiter, public string $slot, public string $id) {}
}

/**
 * symfony/lock 5.4 (php-symfony-lock): LockFactory over RedisStore, createLock($name, $ttl,
 * autoRelease false), acquire(true): retries every 100 ± 10 ms with no wait limit.
 * release() throws LockReleasingException when the key is still there and not ours.
 */
final class SymfonyLib implements Lib
{
    private $factory;

    public function __construct(private string $host, private int $port, private float $ttl = 2.0)
    {
        require_once 'Symfony/Component/Lock/autoload.php';
        $this->reset();
    }

    public function reset(): void
    {
        $this->factory = new \Symfony\Component\Lock\LockFactory(
            new \Symfony\Component\Lock\Store\RedisStore(phpredis($this->host, $this->port)));
    }

    public function lease(): float { return $this->ttl; }
    public function wait(): float { return INF; }
    public function timeout(): float { return CONNECT_TIMEOUT + READ_TIMEOUT; }
    public function fenced(): bool { return false; }

    public function acquire(string $name): ?object
    {
        $lock = $this->factory->createLock($name, $this->ttl, false);
        return $lock->acquire(true) ? $lock : null;
    }

    /** RedisStore is a SharedLockStoreInterface: acquireRead(true) polls every 100 ± 10 ms, no wait limit. */
    public function primitives(): array { return ['rw']; }
    public function severalPermits(): bool { return false; }

    public function acquireShared(string $name, bool $exclusive): ?object
    {
        $lock = $this->factory->createLock($name, $this->ttl, false);
        return ($exclusive ? $lock->acquire(true) : $lock->acquireRead(true)) ? $lock : null;
    }

    public function acquirePermits(string $name, int $limit, int $permits): ?object { throw new \LogicException('no semaphore'); }
    public function acquireAll(array $names): ?array { throw new \LogicException('no multi-lock'); }
    public function releaseAll(array $hs): bool { throw new \LogicException('no multi-lock'); }
    public function nameOf(object $h): ?string { return null; }

    public function token(object $h): ?string { return null; }
    public function fence(object $h): ?int { return null; }

    public function release(object $h): bool
    {
        // Lock::release() deletes by token, then checks that the key is gone.
        try {
            $h->release();
            return true;
        } catch (\Symfony\Component\Lock\Exception\LockReleasingException $e) {
            if ($e->getPrevious() !== null) {
                throw $e;   // a network error, not a verdict on ownership
            }
            return false;
        }
    }

    public function refresh(object $h): ?bool
    {
        try {
            $h->refresh();
            return true;
        } catch (\Symfony\Component\Lock\Exception\LockConflictedException) {
            return false;
        }
    }

    public function lostSignals(): int { return 0; }
}

/**
 * php-lock 2.2 (php-malkusch-lock): PHPRedisMutex. Its synchronized() is lock();
 * $code(); unlock(); the two protected steps are reached through a subclass so
 * that the workload can record them apart. Its timeout (whole seconds) is the
 * wait, and timeout + 1 the lease. unlock() throws ExecutionOutsideLockException
 * past the timeout and LockReleaseException when the key was not its own.
 */
final class MalkuschLib implements Lib
{
    use MutexOnly;

    private \Redis $r;

    public function __construct(private string $host, private int $port, private int $timeoutS = 2)
    {
        require_once 'Malkusch/Lock/autoload.php';
        if (!class_exists(OpenPHPRedisMutex::class, false)) {
            eval('namespace Nemesis; final class OpenPHPRedisMutex extends \malkusch\lock\mutex\PHPRedisMutex {
                public function open(): void { $this->lock(); }
                public function close(): void { $this->unlock(); } }');
        }
        $this->reset();
    }

    public function reset(): void { $this->r = phpredis($this->host, $this->port); }
    public function lease(): float { return $this->timeoutS + 1; }
    public function wait(): float { return $this->timeoutS; }
    public function timeout(): float { return CONNECT_TIMEOUT + READ_TIMEOUT; }
    public function fenced(): bool { return false; }

    public function acquire(string $name): ?object
    {
        $m = new OpenPHPRedisMutex([$this->r], $name, $this->timeoutS);
        try {
            $m->open();
        } catch (\malkusch\lock\exception\TimeoutException) {
            return null;
        }
        return $m;
    }

    public function token(object $h): ?string { return null; }
    public function fence(object $h): ?int { return null; }

    public function release(object $h): bool
    {
        try {
            $h->close();
            return true;
        } catch (\malkusch\lock\exception\ExecutionOutsideLockException) {
            return false;
        } catch (\malkusch\lock\exception\LockReleaseException $e) {
            if ($e->getPrevious() !== null) {
                throw $e;
            }
            return false;
        }
    }

    public function refresh(object $h): ?bool { return null; }
    public function lostSignals(): int { return 0; }
}

/** @param array $topo see DistLockLib; peers use $topo['host'], $topo['port'] (one server) */
function make_lib(string $lib, array $topo): Lib
{
    return match ($lib) {
        'distlock' => new DistLockLib($topo),
        'laravel' => new LaravelLib($topo['host'], $topo['port']),
        'symfony' => new SymfonyLib($topo['host'], $topo['port']),
        'malkusch' => new MalkuschLib($topo['host'], $topo['port']),
        default => throw new \ValueError("unknown lib $lib"),
    };
}

/** Lease (s), wait (s), per-request timeout (s), fencing and primitives of a library, without connecting. */
function lib_params(string $lib): array
{
    return match ($lib) {
        'distlock' => ['lease' => 2.0, 'wait' => 2.0, 'timeout' => CONNECT_TIMEOUT + READ_TIMEOUT, 'fenced' => true,
                       'primitives' => ['mutex', 'rw', 'semaphore', 'multi']],
        'laravel' => ['lease' => 2.0, 'wait' => 2.0, 'timeout' => CONNECT_TIMEOUT + READ_TIMEOUT, 'fenced' => false,
                      'primitives' => ['mutex', 'semaphore']],
        'symfony' => ['lease' => 2.0, 'wait' => INF, 'timeout' => CONNECT_TIMEOUT + READ_TIMEOUT, 'fenced' => false,
                      'primitives' => ['mutex', 'rw']],
        'malkusch' => ['lease' => 3.0, 'wait' => 2.0, 'timeout' => CONNECT_TIMEOUT + READ_TIMEOUT, 'fenced' => false,
                       'primitives' => ['mutex']],
    };
}
