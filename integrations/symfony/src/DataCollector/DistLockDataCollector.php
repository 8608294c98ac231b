<?php

declare(strict_types=1);

namespace DistLock\Symfony\DataCollector;

use Symfony\Component\EventDispatcher\EventSubscriberInterface;
use Symfony\Component\HttpFoundation\Request;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\HttpKernel\DataCollector\DataCollector;
use Symfony\Component\HttpKernel\DataCollector\LateDataCollectorInterface;
use Symfony\Component\HttpKernel\Event\RequestEvent;
use Symfony\Component\HttpKernel\Event\TerminateEvent;
use Symfony\Component\HttpKernel\KernelEvents;

/**
 * The Web Profiler's "Locks" panel: every distlock operation of one request
 * (the extension's DistLock\Event, docs: README "Observing locks").
 *
 * It registers an observer (DistLock::addObserver()) when the main request
 * starts and removes it once the profile is saved (kernel.terminate, after
 * the profiler's own listener), so the extension builds no event outside a
 * profiled request. The bundle (DistLockBundle) wires it only where the
 * profiler is enabled.
 *
 * What it sees: every operation of every DistLock client in the PHP process
 * between kernel.request and kernel.terminate (DistLockStore's, and direct
 * calls). Implicit releases are reported by the extension when their reply is
 * read, at the next distlock call of the connection: a lease the request
 * still holds when kernel.terminate ends is released at PHP's request end,
 * after the profile is saved, and is not in it.
 *
 * Durations are kept in nanoseconds as the extension gives them; the
 * template shows milliseconds.
 */
final class DistLockDataCollector extends DataCollector implements LateDataCollectorInterface, EventSubscriberInterface
{
    /** @var list<array<string, mixed>> events of the running request, as plain arrays */
    private array $events = [];

    /** hrtime(true) at kernel.request, ns: the origin of each row's "at" column. */
    private ?int $requestStartNs = null;

    /** The registered observer (one closure, so that removeObserver() finds it). */
    private ?\Closure $observer = null;

    public function __construct()
    {
        $this->reset();
    }

    public static function getSubscribedEvents(): array
    {
        return [
            // Before the router and the firewall (32 and 8), which may take locks.
            KernelEvents::REQUEST => ['onKernelRequest', 2048],
            // After the ProfilerListener's save (-1024), which calls lateCollect().
            KernelEvents::TERMINATE => ['onKernelTerminate', -2048],
        ];
    }

    /** Registers the observer at the main request's start. */
    public function onKernelRequest(RequestEvent $event): void
    {
        if (!$event->isMainRequest()) {
            return;
        }
        $this->start();
    }

    /** Removes the observer once the profile is saved. */
    public function onKernelTerminate(TerminateEvent $event): void
    {
        $this->stop();
    }

    /**
     * Starts recording: registers the observer (once) and clears what an
     * earlier request of this process recorded. Without an extension that has
     * the observer (DistLock::addObserver(), distlock 29.1 on), records nothing
     * and the panel says so.
     */
    public function start(): void
    {
        $this->stop();
        $this->events = [];
        $this->requestStartNs = hrtime(true);
        if (!self::observable()) {
            return;
        }
        $this->observer = $this->record(...);
        \DistLock::addObserver($this->observer);
    }

    /** Stops recording (removes the observer); what was recorded stays for lateCollect(). */
    public function stop(): void
    {
        if ($this->observer !== null) {
            \DistLock::removeObserver($this->observer);
            $this->observer = null;
        }
    }

    /**
     * The observer: one DistLock\Event, copied into a plain array (the profile
     * is serialized; the extension's Event is not meant to be).
     */
    public function record(\DistLock\Event $e): void
    {
        $this->events[] = [
            'operation' => $e->operation,
            'kind' => $e->kind,
            'name' => $e->name,
            'names' => $e->names,
            'outcome' => $e->outcome,
            'start_ns' => $e->startNs,
            'call_ns' => $e->callNs,
            'wait_ns' => $e->waitNs,
            'round_trips' => $e->roundTrips,
            'server' => $e->server,
            'fencing_token' => $e->fencingToken,
            'ttl' => $e->ttl,
            'permits' => $e->permits,
            'held_ns' => $e->heldNs,
            'implicit' => $e->implicit,
            'error' => $e->error,
        ];
    }

    public function collect(Request $request, Response $response, ?\Throwable $exception = null): void
    {
        $this->summarize();
    }

    /** Called by the profiler just before it saves the profile (kernel.terminate): takes what came after the response too. */
    public function lateCollect(): void
    {
        $this->summarize();
    }

    private function summarize(): void
    {
        $origin = $this->requestStartNs ?? ($this->events[0]['start_ns'] ?? 0);
        $operations = [];
        $totals = [
            'count' => 0, 'wait_ns' => 0, 'max_wait_ns' => 0, 'call_ns' => 0, 'round_trips' => 0,
            'acquired' => 0, 'conflicts' => 0, 'timeouts' => 0, 'lost' => 0, 'errors' => 0, 'implicit' => 0,
        ];
        foreach ($this->events as $e) {
            $e['at_ns'] = max(0, $e['start_ns'] - $origin);
            $operations[] = $e;
            $totals['count']++;
            $totals['wait_ns'] += $e['wait_ns'];
            $totals['max_wait_ns'] = max($totals['max_wait_ns'], $e['wait_ns']);
            $totals['call_ns'] += $e['call_ns'];
            $totals['round_trips'] += $e['round_trips'];
            $totals['implicit'] += $e['implicit'] ? 1 : 0;
            match (true) {
                $e['outcome'] === 'acquired' => $totals['acquired']++,
                // wrong_kind: held under another kind of lock, for the caller a conflict too.
                $e['outcome'] === 'conflict', $e['outcome'] === 'wrong_kind' => $totals['conflicts']++,
                // deadlock: a wait refused as closing a cycle (a DeadlockException, a LockTimeoutException).
                $e['outcome'] === 'timeout', $e['outcome'] === 'deadlock' => $totals['timeouts']++,
                $e['outcome'] === 'lost' => $totals['lost']++,
                $e['outcome'] === 'error' => $totals['errors']++,
                default => null,
            };
        }
        $this->data = [
            'observable' => self::observable(),
            'extension_version' => phpversion('distlock') ?: null,
            'operations' => $operations,
            'totals' => $totals,
        ];
    }

    /** Whether the loaded extension has the observer (DistLock::addObserver()). */
    private static function observable(): bool
    {
        return class_exists(\DistLock::class, false) && method_exists(\DistLock::class, 'addObserver');
    }

    /** @return list<array<string, mixed>> the request's operations, in the order they were reported */
    public function getOperations(): array
    {
        return $this->data['operations'] ?? [];
    }

    /** @return array<string, int> count, wait_ns, max_wait_ns, call_ns, round_trips, acquired, conflicts, timeouts, lost, errors, implicit */
    public function getTotals(): array
    {
        return $this->data['totals'] ?? [];
    }

    /** False when the loaded extension has no observer (an older distlock): the panel says so. */
    public function isObservable(): bool
    {
        return $this->data['observable'] ?? false;
    }

    public function getExtensionVersion(): ?string
    {
        return $this->data['extension_version'] ?? null;
    }

    /** 'red' for a lost lease or an error, 'yellow' for a conflict or a timeout, else null (the toolbar's colour). */
    public function getStatus(): ?string
    {
        $t = $this->getTotals();
        if (($t['lost'] ?? 0) > 0 || ($t['errors'] ?? 0) > 0) {
            return 'red';
        }
        if (($t['timeouts'] ?? 0) > 0 || ($t['conflicts'] ?? 0) > 0) {
            return 'yellow';
        }

        return null;
    }

    public function getName(): string
    {
        return 'distlock';
    }

    /** Between requests of a long-running worker (kernel.reset): forgets the last request; the observer goes. */
    public function reset(): void
    {
        $this->stop();
        $this->events = [];
        $this->requestStartNs = null;
        $this->data = [
            'observable' => self::observable(),
            'extension_version' => null,
            'operations' => [],
            'totals' => [],
        ];
    }
}
