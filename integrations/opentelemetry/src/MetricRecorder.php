<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry;

use DistLock\OpenTelemetry\DistLockAttributes as A;
use OpenTelemetry\API\Metrics\CounterInterface;
use OpenTelemetry\API\Metrics\HistogramInterface;
use OpenTelemetry\SemConv\Attributes\DbAttributes;
use OpenTelemetry\SemConv\Attributes\ErrorAttributes;
use OpenTelemetry\SemConv\Metrics\DbMetrics;

/**
 * The metrics of distlock events. Attribute sets are kept small so that the
 * number of time series stays bounded: lock kind, outcome and server (a
 * handful each); the lock name only with lock_names 'all'.
 *
 *   distlock.lock.wait.duration   histogram, s     every acquire (0 when it did not wait)
 *   distlock.lock.hold.duration   histogram, s     every release that freed its lease (outcome released), and
 *                                                  every lease found lost by the watchdog or the watch (outcome lost)
 *   distlock.lock.acquisitions    counter          every acquire, by distlock.outcome
 *   distlock.lock.lost            counter          every lease lost, once, by distlock.operation: what
 *                                                  found it (lost: the watchdog or the lost-lease watch;
 *                                                  release, refresh: that call)
 *   db.client.operation.duration  histogram, s     the conventions' standard metric, for every call that
 *                                                  talked to Redis (acquire, release, refresh, renewal)
 */
final class MetricRecorder
{
    /** Bucket bounds, s: the database conventions' for db.client.operation.duration, up to 10 s. */
    private const DURATION_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10];
    /** Waits and holds are longer: the same low end, then up to a minute and a half. */
    private const LOCK_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 90];

    private HistogramInterface $wait;
    private HistogramInterface $hold;
    private CounterInterface $acquisitions;
    private CounterInterface $lost;
    private HistogramInterface $operation;
    /**
     * Leases the watchdog or the watch reported lost whose handle has not
     * told it yet (kind NUL name => true): their release's or refresh's
     * 'lost' is the same loss, not another one. A watchdog renewal that
     * finds a lease gone is always followed by its 'lost' event, so renewals
     * are never counted.
     *
     * @var array<string, true>
     */
    private array $reportedLost = [];

    public function __construct(
        private readonly Providers $providers,
        private readonly ServerAttributes $servers,
        private readonly bool $lockNames,
    ) {
    }

    /** @param object $e a \DistLock\Event (read through its public properties only) */
    public function record(object $e): void
    {
        [$meter, $changed] = $this->providers->meter();
        if ($changed) {
            $this->wait = $meter->createHistogram(A::METRIC_WAIT_DURATION, 's',
                'Time an acquire spent waiting for other holders of the lock', ['ExplicitBucketBoundaries' => self::LOCK_BUCKETS]);
            $this->hold = $meter->createHistogram(A::METRIC_HOLD_DURATION, 's',
                'Time from a grant to its release or to the loss of its lease', ['ExplicitBucketBoundaries' => self::LOCK_BUCKETS]);
            $this->acquisitions = $meter->createCounter(A::METRIC_ACQUISITIONS, '{acquisition}',
                'Lock acquire calls, by outcome');
            $this->lost = $meter->createCounter(A::METRIC_LOST, '{lease}',
                'Held leases found lost, by what found it');
            $this->operation = $meter->createHistogram(DbMetrics::DB_CLIENT_OPERATION_DURATION, 's',
                'Duration of database client operations', ['ExplicitBucketBoundaries' => self::DURATION_BUCKETS]);
        }

        $server = $this->servers->of($e->server);
        $attributes = $server;
        $attributes[A::LOCK_KIND] = $e->kind;
        if ($this->lockNames) {
            $attributes[A::LOCK_NAME] = $e->name;
        }
        $op = $e->operation;
        $outcome = $e->outcome;

        if ($op === 'acquire') {
            $attributes[A::OUTCOME] = $outcome;
            $this->acquisitions->add(1, $attributes);
            $this->wait->record($e->waitNs / 1e9, $attributes);
        } elseif ($e->heldNs !== null && ($op === 'release' || $op === 'lost')) {
            $this->hold->record($e->heldNs / 1e9, $attributes + [A::OUTCOME => $outcome]);
        }
        if ($outcome === 'lost') {
            $this->countLost($e, $attributes);
        } elseif ($op === 'acquire' && $outcome === 'acquired') {
            unset($this->reportedLost[$e->kind . "\0" . $e->name]);   // a new lease of that name
        }
        if ($op !== 'lost') {
            $db = $server;
            $db[DbAttributes::DB_SYSTEM_NAME] = 'redis';
            $db[DbAttributes::DB_OPERATION_NAME] = 'distlock.' . $op;
            if ($outcome === 'error' || $outcome === 'lost' || $outcome === 'wrong_kind' || $outcome === 'deadlock') {
                $db[ErrorAttributes::ERROR_TYPE] = $outcome;
            }
            $this->operation->record($e->callNs / 1e9, $db);
        }
    }

    /** @param array<string, mixed> $attributes */
    private function countLost(object $e, array $attributes): void
    {
        $key = $e->kind . "\0" . $e->name;
        switch ($e->operation) {
            case 'lost':
                if (count($this->reportedLost) >= 10_000) {
                    $this->reportedLost = [];   // leases lost and never released: a bound, not a count
                }
                $this->reportedLost[$key] = true;
                break;
            case 'renewal':
                return;
            default:   // release, refresh
                if (isset($this->reportedLost[$key])) {
                    unset($this->reportedLost[$key]);

                    return;
                }
        }
        $this->lost->add(1, $attributes + [A::OPERATION => $e->operation]);
    }
}
