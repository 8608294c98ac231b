<?php

declare(strict_types=1);

namespace DistLock\Laravel\Console;

use Illuminate\Console\Command;

/**
 * php artisan distlock:status {name} [--store=NAME]
 * Held or free, whatever holds it (DistLock::status(): a mutex, a
 * readers-writer lock's exclusive or shared holders, a semaphore, or a key
 * distlock did not write), the lease left (the longest of the holders'),
 * the waiters of every queue, the holders and the permits in use. The
 * owner token is a bearer credential for release: only its first 4
 * characters are shown, and only for an exclusive holder (a mutex, a
 * writer): shared holders and a semaphore's have no single owner.
 *
 *     cmd: held, 19.998 s left, 0 waiter(s); mutex, 1 holder, owner 3f2a…
 *     catalogue: held, 29.412 s left, 1 waiter(s); shared, 2 holders
 *     render: held, 9.870 s left, 0 waiter(s); semaphore, 2 holders, 3 permits in use
 *     cmd: free, 0 waiter(s)
 */
class StatusCommand extends Command
{
    use ResolvesClient;

    protected $signature = 'distlock:status {name : lock name (without prefix)}
        {--store= : a distlock cache store; its lock names are those of Cache::store(NAME)->lock()}';

    protected $description = 'Show whether a distlock lock is held, by what kind of holder, its remaining lease and its waiters';

    public function handle(): int
    {
        return $this->reporting(fn (): int => $this->showStatus());
    }

    private function showStatus(): int
    {
        $client = $this->lockClient();
        $name = (string) $this->argument('name');
        $status = $client->status($name);
        if (!$status['locked']) {
            $this->line("$name: free, {$status['waiters']} waiter(s)");
            return 0;
        }
        $left = is_infinite($status['ttl']) ? 'no expiry' : sprintf('%.3f s left', $status['ttl']);
        $kind = $status['kind'] ?? 'held';
        $holders = (int) $status['holders'];
        $line = sprintf('%s: held, %s, %d waiter(s); %s, %d holder%s', $name, $left, $status['waiters'], $kind,
            $holders, $holders === 1 ? '' : 's');
        if ($kind === 'semaphore') {
            $line .= sprintf(', %d permit%s in use', $status['permits'], $status['permits'] === 1 ? '' : 's');
        }
        if ($kind === 'mutex' || $kind === 'exclusive') {
            $owner = $client->owner($name);
            $line .= $owner === null ? '' : ', owner ' . substr($owner, 0, 4) . '…';
        }
        $this->line($line);
        return 0;
    }
}
