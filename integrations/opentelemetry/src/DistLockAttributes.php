<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry;

/**
 * The names of the distlock.* attributes, span names and metric names this
 * package writes (the db.*, server.* and error.* ones come from
 * open-telemetry/sem-conv). Public so that dashboards, tests and processors
 * can refer to them instead of repeating strings.
 */
final class DistLockAttributes
{
    /** string: the lock name as the caller gave it (no key prefix); only with lock_names 'spans' or 'all'. */
    public const LOCK_NAME = 'distlock.lock.name';
    /** string[]: every name of a multi-lock; only with lock_names 'spans' or 'all'. */
    public const LOCK_NAMES = 'distlock.lock.names';
    /** string: mutex | shared | exclusive | permits | multi. */
    public const LOCK_KIND = 'distlock.lock.kind';
    /**
     * string: the event's outcome (acquired, conflict, timeout, deadlock, wrong_kind, released,
     * refreshed, lost, error). deadlock: an acquire whose wait was refused at once because it
     * would close a cycle of waits across processes (\DistLock\DeadlockException).
     */
    public const OUTCOME = 'distlock.outcome';
    /** string: acquire | release | refresh | renewal | lost (on the lost-lease counter: what found the loss). */
    public const OPERATION = 'distlock.operation';
    /** double, seconds: time the acquire spent waiting for other holders. */
    public const WAIT_DURATION = 'distlock.wait.duration';
    /** double, seconds: time from the grant to the release (outcome released) or to the loss found (lost events). */
    public const HOLD_DURATION = 'distlock.hold.duration';
    /** int: the grant's fencing token (fencing on). */
    public const FENCING_TOKEN = 'distlock.fencing_token';
    /** double, seconds: the lease TTL asked for. */
    public const TTL = 'distlock.ttl';
    /** int: permits taken or given back (permits kind). */
    public const PERMITS = 'distlock.permits';
    /** int: round trips to the server(s) the call made (0: a deferred release, whose reply rode on a later one). */
    public const ROUND_TRIPS = 'distlock.round_trips';
    /** bool: a release by destruction, end of synchronized(), endRequest() or request end. */
    public const IMPLICIT = 'distlock.implicit';

    /** Span names: "{db.operation.name}" as the database conventions name a span whose target is left out. */
    public const SPAN_ACQUIRE = 'distlock.acquire';
    public const SPAN_RELEASE = 'distlock.release';
    public const SPAN_REFRESH = 'distlock.refresh';
    public const SPAN_RENEWAL = 'distlock.renewal';
    public const SPAN_LOST = 'distlock.lost';
    /** The child span of an acquire that waited: its length is the measured wait; its place is estimated. */
    public const SPAN_WAIT = 'distlock.wait';

    /** Histogram, s: wait of every acquire (0 when it did not wait). */
    public const METRIC_WAIT_DURATION = 'distlock.lock.wait.duration';
    /** Histogram, s: hold time of every release and lost lease. */
    public const METRIC_HOLD_DURATION = 'distlock.lock.hold.duration';
    /** Counter, {acquisition}: acquire calls by outcome. */
    public const METRIC_ACQUISITIONS = 'distlock.lock.acquisitions';
    /** Counter, {lease}: leases found lost, by what found it (distlock.operation). */
    public const METRIC_LOST = 'distlock.lock.lost';

    private function __construct()
    {
    }
}
