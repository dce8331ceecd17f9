extension ConsoleAssets {
    static let style = #"""
    :root { color-scheme: light dark; --accent: #0b57d0; --danger: #b3261e; }
    * { box-sizing: border-box; }
    body { font-family: -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; margin: 0 auto; max-width: 64rem;
           padding: 1rem; line-height: 1.5; }
    header { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline; gap: .5rem; }
    h1 { font-size: 1.4rem; margin: 0; }
    #banner { flex-basis: 100%; background: #fff4ce; color: #3d2f00; padding: .5rem; border-radius: 6px; }
    label { display: block; font-weight: 600; margin: .6rem 0 .2rem; }
    input, textarea, select { width: 100%; max-width: 28rem; padding: .5rem; font: inherit; border: 1px solid #8e8e93; border-radius: 6px; }
    textarea { font-family: ui-monospace, monospace; max-width: 100%; }
    button { font: inherit; padding: .45rem .9rem; margin: .4rem .4rem 0 0; border-radius: 6px; border: 1px solid var(--accent);
             background: var(--accent); color: #fff; cursor: pointer; }
    button.danger { background: var(--danger); border-color: var(--danger); }
    button:focus-visible, input:focus-visible, textarea:focus-visible { outline: 3px solid #fbbc04; outline-offset: 2px; }
    table { width: 100%; border-collapse: collapse; margin-top: 1rem; }
    caption { text-align: left; font-weight: 600; }
    th, td { text-align: left; padding: .4rem; border-bottom: 1px solid #c7c7cc; overflow-wrap: anywhere; }
    td button { margin: 0; padding: .2rem .5rem; }
    dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
    dt { font-weight: 600; }
    dd { margin: 0; overflow-wrap: anywhere; }
    nav { flex-basis: 100%; }
    nav button { background: transparent; color: var(--accent); }
    nav button[aria-current="page"] { background: var(--accent); color: #fff; }
    input[type=checkbox] { width: auto; }
    code, p, li, pre { overflow-wrap: anywhere; }
    pre { white-space: pre-wrap; overflow-wrap: anywhere; background: rgba(127, 127, 127, .12); padding: .5rem; border-radius: 6px; }
    #status.error { color: var(--danger); font-weight: 600; }
    @media (max-width: 40rem) { thead { display: none; } tr, td { display: block; } td { border: 0; padding: .1rem 0; }
                                tr { border-bottom: 1px solid #c7c7cc; padding: .4rem 0; } dl { grid-template-columns: 1fr; } }

    """#
}
