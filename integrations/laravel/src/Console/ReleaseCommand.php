<?php

declare(strict_types=1);

namespace DistLock\Laravel\Console;

use Illuminate\Console\Command;

/**
 * php artisan distlock:release {name} [--store=NAME] [--force]
 * Deletes a lock whoever holds it (admin use: a holder that died with a
 * long lease). Asks for confirmation unless --force.
 */
class ReleaseCommand extends Command
{
    use ResolvesClient;

    protected $signature = 'distlock:release {name : lock name (without prefix)}
        {--store= : a distlock cache store; its lock names are those of Cache::store(NAME)->lock()}
        {--force : do not ask for confirmation}';

    protected $description = 'Release a distlock lock whoever holds it';

    public function handle(): int
    {
        return $this->reporting(fn (): int => $this->releaseByForce());
    }

    private function releaseByForce(): int
    {
        $client = $this->lockClient();
        $name = (string) $this->argument('name');
        if (!$this->option('force') && !$this->confirm("Release the lock [$name] whoever holds it?")) {
            $this->line('Not released.');
            return 1;
        }
        $this->line($client->forceRelease($name) ? "$name: released" : "$name: was not held");
        return 0;
    }
}
