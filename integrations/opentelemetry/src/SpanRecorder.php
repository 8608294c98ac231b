<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry;

use DistLock\OpenTelemetry\DistLockAttributes as A;
use OpenTelemetry\API\Trace\SpanKind;
use OpenTelemetry\API\Trace\StatusCode;
use OpenTelemetry\Context\Context;
use OpenTelemetry\SemConv\Attributes\DbAttributes;
use OpenTelemetry\SemConv\Attributes\ErrorAttributes;

/**
 * One span per distlock event, after the OpenTelemetry database semantic
 * conventions for Redis:
 *   - acquire, release, refresh, renewal: kind CLIENT, named
 *     "{db.operation.name}" (distlock.acquire ...), db.system.name = redis,
 *     server.address / server.port of the node that answered;
 *   - lost: kind INTERNAL, distlock.lost (nothing was sent: the loss was
 *     found by the watchdog or the lost-lease watch);
 *   - an acquire that waited gets a child span distlock.wait (INTERNAL)
 *     whose length is the measured wait; the extension measures how long,
 *     not when, so it is placed after the first round trip's share of the
 *     call (an estimate, said in README).
 * The parent is the active span when the event is reported (the observer
 * runs before the distlock call returns, so for a call that is the caller's
 * span). Start and end are the call's own times (Event::$startNs, $callNs on
 * hrtime's clock), moved to the epoch with an offset taken once, the same
 * way as the API's SystemClock, so that they line up with the SDK's spans.
 * Status ERROR for the outcomes error, lost, wrong_kind and deadlock (the
 * caller gets an exception or a lease it no longer has; a deadlock is a wait
 * refused because it would close a cycle of waits across processes, a
 * DeadlockException: a lock-ordering fault to fix, not contention); conflict
 * and timeout are the ordinary results of contention and leave the status unset.
 */
final class SpanRecorder
{
    private const SPAN_NAMES = [
        'acquire' => A::SPAN_ACQUIRE,
        'release' => A::SPAN_RELEASE,
        'refresh' => A::SPAN_REFRESH,
        'renewal' => A::SPAN_RENEWAL,
        'lost' => A::SPAN_LOST,
    ];
    private const ERROR_OUTCOMES = ['error' => true, 'lost' => true, 'wrong_kind' => true, 'deadlock' => true];

    public function __construct(
        private readonly Providers $providers,
        private readonly ServerAttributes $servers,
        private readonly bool $lockNames,
        private readonly int $epochOffsetNs,
    ) {
    }

    /** @param object $e a \DistLock\Event (read through its public properties only) */
    public function record(object $e): void
    {
        $op = $e->operation;
        $name = self::SPAN_NAMES[$op] ?? 'distlock.' . $op;
        $start = $e->startNs + $this->epochOffsetNs;
        $end = $start + $e->callNs;

        $attributes = $this->servers->of($e->server);
        $attributes[DbAttributes::DB_SYSTEM_NAME] = 'redis';
        if ($op !== 'lost') {
            $attributes[DbAttributes::DB_OPERATION_NAME] = $name;
        }
        $attributes[A::LOCK_KIND] = $e->kind;
        $attributes[A::OUTCOME] = $e->outcome;
        if ($this->lockNames) {
            $attributes[A::LOCK_NAME] = $e->name;
            if ($e->kind === 'multi') {
                $attributes[A::LOCK_NAMES] = $e->names;
            }
        }
        if ($op === 'acquire') {
            $attributes[A::WAIT_DURATION] = $e->waitNs / 1e9;
        }
        $attributes[A::ROUND_TRIPS] = $e->roundTrips;
        if ($e->fencingToken !== null) {
            $attributes[A::FENCING_TOKEN] = $e->fencingToken;
        }
        if ($e->ttl !== null) {
            $attributes[A::TTL] = $e->ttl;
        }
        if ($e->permits !== null) {
            $attributes[A::PERMITS] = $e->permits;
        }
        if ($e->heldNs !== null) {
            $attributes[A::HOLD_DURATION] = $e->heldNs / 1e9;
        }
        if ($op === 'release') {
            $attributes[A::IMPLICIT] = $e->implicit;
        }
        $failed = isset(self::ERROR_OUTCOMES[$e->outcome]);
        if ($failed) {
            $attributes[ErrorAttributes::ERROR_TYPE] = $e->outcome;
        }

        $tracer = $this->providers->tracer();
        $span = $tracer->spanBuilder($name)
            ->setSpanKind($op === 'lost' ? SpanKind::KIND_INTERNAL : SpanKind::KIND_CLIENT)
            ->setStartTimestamp($start)
            ->setAttributes($attributes)
            ->startSpan();
        if (!$span->isRecording()) {
            $span->end($end);

            return;
        }
        if ($failed) {
            $span->setStatus(StatusCode::STATUS_ERROR, $e->error ?? match ($e->outcome) {
                'lost' => 'the lease was lost (expired or taken over)',
                'wrong_kind' => 'the name is held under another kind',
                'deadlock' => 'the wait would close a cycle of waits across processes (deadlock)',
                default => null,
            });
        }
        if ($e->waitNs > 0 && $op === 'acquire') {
            // Where the wait sat in the call is not measured: the call's
            // non-waiting time is its round trips; the wait follows the first.
            $busy = max(0, $e->callNs - $e->waitNs);
            $waitStart = $start + intdiv($busy, max(2, $e->roundTrips));
            $tracer->spanBuilder(A::SPAN_WAIT)
                ->setParent($span->storeInContext(Context::getCurrent()))
                ->setSpanKind(SpanKind::KIND_INTERNAL)
                ->setStartTimestamp($waitStart)
                ->startSpan()
                ->end(min($end, $waitStart + $e->waitNs));
        }
        $span->end($end);
    }
}
