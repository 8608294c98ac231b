<?php

declare(strict_types=1);

namespace DistLock\Laravel\Events;

/**
 * The data of one lock operation, copied from the extension's \DistLock\Event
 * (docs: the README's "Observing locks"). Durations are given twice: in seconds
 * (float, as Laravel and distlock's PHP API count them) and in nanoseconds
 * (int, as the extension measured them on the monotonic clock).
 *
 * Never a token or a password: the event has neither.
 */
trait CarriesLockData
{
    /** 'acquire' | 'release' | 'refresh' | 'renewal' (the watchdog's) | 'lost' */
    public readonly string $operation;
    /** 'mutex' | 'shared' | 'exclusive' | 'permits' | 'multi' */
    public readonly string $kind;
    /** The lock name as the caller gave it, without the client's prefix (a multi-lock: its first name). */
    public readonly string $name;
    /** @var list<string> every name (one name: [$name]) */
    public readonly array $names;
    /** acquire: acquired|conflict|timeout|deadlock|wrong_kind|error; release: released|lost|error; refresh/renewal: refreshed|lost|error; lost: lost */
    public readonly string $outcome;
    /** Seconds spent waiting for other holders (0.0 when it did not wait). */
    public readonly float $wait;
    public readonly int $waitNs;
    /** Seconds the call took, waiting included. */
    public readonly float $duration;
    public readonly int $callNs;
    /** When the call began: ns on the clock of hrtime(true). */
    public readonly int $startNs;
    /** Release and lost lease: seconds since the grant; else null. */
    public readonly ?float $held;
    public readonly ?int $heldNs;
    /** The grant's fencing token (fencing on), else null. */
    public readonly ?int $fencingToken;
    /** "host:port" or "unix:/path" of the node that answered (Redlock: the first), else null. */
    public readonly ?string $server;
    /** The lease asked for, seconds (acquire, refresh, renewal), else null. */
    public readonly ?float $ttl;
    /** Permits taken or given back (kind 'permits'), else null. */
    public readonly ?int $permits;
    public readonly int $roundTrips;
    /** A release by destruction, end of synchronized(), endRequest() or request end (reported after the fact). */
    public readonly bool $implicit;
    /** Outcome 'error': the exception's message (no secrets), else null. */
    public readonly ?string $error;

    /** @param object $e a \DistLock\Event (typed loosely: the class exists only with the extension's observer) */
    public function __construct(object $e)
    {
        $this->operation = $e->operation;
        $this->kind = $e->kind;
        $this->name = $e->name;
        $this->names = $e->names;
        $this->outcome = $e->outcome;
        $this->waitNs = $e->waitNs;
        $this->wait = $e->waitNs / 1e9;
        $this->callNs = $e->callNs;
        $this->duration = $e->callNs / 1e9;
        $this->startNs = $e->startNs;
        $this->heldNs = $e->heldNs;
        $this->held = $e->heldNs === null ? null : $e->heldNs / 1e9;
        $this->fencingToken = $e->fencingToken;
        $this->server = $e->server;
        $this->ttl = $e->ttl;
        $this->permits = $e->permits;
        $this->roundTrips = $e->roundTrips;
        $this->implicit = $e->implicit;
        $this->error = $e->error;
    }
}
