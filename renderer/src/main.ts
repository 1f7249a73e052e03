import { mount } from 'svelte';
import App from './App.svelte';
import { adoptSession } from './lib/api.ts';
import './styles.css';

// The session link's redirect brings the session id in the fragment: kept in this tab, then removed from the URL.
adoptSession();
const target = document.getElementById('app');
if (target) mount(App, { target });
