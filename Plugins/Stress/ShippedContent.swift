import Foundation

/// The content pack the module ships (version 1). The thesis gives only the programme names, the
/// three known week-4 items, the team and research headings; every other text here was written
/// for this module and is marked as the team's to replace (docs/stress.md, "Content"). Week 4's
/// items paraphrase the kind of statements the thesis shows (a 1–7 agreement scale); the entry test
/// paraphrases common perceived-stress items (0–4), not a licensed instrument.
enum ShippedContent {
    static let pack: ContentPack = {
        do { return try JSONDecoder().decode(ContentPack.self, from: Data(json.utf8)) } catch {
            fatalError("the shipped content pack does not decode: \(error)")  // caught by StressContentTests
        }
    }()

    static let json = #"""
    {
      "version": 1,
      "programs": [
        {"order": 0, "title": "goal", "name": {"cs": "Cíle", "sk": "Ciele", "en": "Goals"}, "repeatable": false, "hasSummary": true,
         "intro": {"cs": "Tento týden si zformuluješ jeden krátkodobý cíl, který je v tvých silách.", "sk": "Tento týždeň si sformuluješ jeden krátkodobý cieľ, ktorý je v tvojich silách.", "en": "This week you formulate one short-term goal that is within your reach."},
         "nextSteps": {"cs": "Hotovo. Mezitím si dál zapisuj do deníku.", "sk": "Hotovo. Medzitým si ďalej zapisuj do denníka.", "en": "Done. Meanwhile, keep writing your diary."}},
        {"order": 1, "title": "relaxation", "name": {"cs": "Relaxace", "sk": "Relaxácia", "en": "Relaxation"}, "repeatable": true, "hasSummary": false,
         "intro": {"cs": "Relaxace uvolňuje napětí v těle i v hlavě. Najdi si klidné místo.", "sk": "Relaxácia uvoľňuje napätie v tele aj v hlave. Nájdi si pokojné miesto.", "en": "Relaxation eases tension in body and mind. Find a quiet place."},
         "nextSteps": {"cs": "Výborně. Cvičení můžeš opakovat kdykoli.", "sk": "Výborne. Cvičenie môžeš opakovať kedykoľvek.", "en": "Well done. You can repeat the exercise any time."}},
        {"order": 2, "title": "time-management", "name": {"cs": "Řízení času", "sk": "Riadenie času", "en": "Time management"}, "repeatable": false, "hasSummary": true,
         "intro": {"cs": "Podíváme se, kam ti utíká čas a co z toho můžeš změnit.", "sk": "Pozrieme sa, kam ti uteká čas a čo z toho môžeš zmeniť.", "en": "We look at where your time goes and what you can change."},
         "nextSteps": {"cs": "Hotovo. Zbývá poslední týden: Hledání smyslu a pozitiv.", "sk": "Hotovo. Zostáva posledný týždeň: Hľadanie zmyslu a pozitív.", "en": "Done. One week is left: Searching for meaning and positives."}},
        {"order": 3, "title": "searching-for-meaning", "name": {"cs": "Hledání smyslu a pozitiv", "sk": "Hľadanie zmyslu a pozitív", "en": "Searching for meaning and positives"}, "repeatable": false, "hasSummary": true,
         "intro": {"cs": "Vzpomeň si na jednu stresovou událost a hledej, co dobrého ti přinesla.", "sk": "Spomeň si na jednu stresovú udalosť a hľadaj, čo dobré ti priniesla.", "en": "Recall one stressful event and look for what good it brought you."},
         "nextSteps": {"cs": "Program je za tebou. Ohodnoť poslední týden a vyplň dva závěrečné dotazníky.", "sk": "Program máš za sebou. Ohodnoť posledný týždeň a vyplň dva záverečné dotazníky.", "en": "You have finished the programme. Rate the last week and fill in the two exit questionnaires."}}
      ],
      "levels": [
        {"level": 1, "label": {"cs": "Ve stresu a vyčerpaný/á", "sk": "V strese a vyčerpaný/á", "en": "Stressed and worn out"}},
        {"level": 2, "label": {"cs": "Unavený/á", "sk": "Unavený/á", "en": "Tired"}},
        {"level": 3, "label": {"cs": "Celkem spokojený/á", "sk": "Celkom spokojný/á", "en": "Fairly content"}},
        {"level": 4, "label": {"cs": "Veselý/á a bez starostí", "sk": "Veselý/á a bezstarostný/á", "en": "Cheerful and carefree"}}
      ],
      "diaryQuestions": [
        {"id": 101, "level": 1, "text": {"cs": "Co tě teď nejvíc tíží?", "sk": "Čo ťa teraz najviac ťaží?", "en": "What weighs on you most right now?"}},
        {"id": 102, "level": 1, "text": {"cs": "Co by ti teď nejvíc pomohlo?", "sk": "Čo by ti teraz najviac pomohlo?", "en": "What would help you most right now?"}},
        {"id": 103, "level": 1, "text": {"cs": "Kdy ses naposledy cítil/a klidně?", "sk": "Kedy si sa naposledy cítil/a pokojne?", "en": "When did you last feel calm?"}},
        {"id": 201, "level": 2, "text": {"cs": "Co tě dnes nejvíc vyčerpalo?", "sk": "Čo ťa dnes najviac vyčerpalo?", "en": "What drained you most today?"}},
        {"id": 202, "level": 2, "text": {"cs": "Jak si dnes můžeš odpočinout?", "sk": "Ako si dnes môžeš oddýchnuť?", "en": "How can you rest today?"}},
        {"id": 203, "level": 2, "text": {"cs": "Co můžeš dnes odložit?", "sk": "Čo môžeš dnes odložiť?", "en": "What can you put off today?"}},
        {"id": 301, "level": 3, "text": {"cs": "Co ti dnes pomohlo?", "sk": "Čo ti dnes pomohlo?", "en": "What helped you today?"}},
        {"id": 302, "level": 3, "text": {"cs": "Za co jsi dnes vděčný/á?", "sk": "Za čo si dnes vďačný/á?", "en": "What are you grateful for today?"}},
        {"id": 303, "level": 3, "text": {"cs": "Co se ti dnes povedlo?", "sk": "Čo sa ti dnes podarilo?", "en": "What went well today?"}},
        {"id": 401, "level": 4, "text": {"cs": "Z čeho máš dnes radost?", "sk": "Z čoho máš dnes radosť?", "en": "What makes you glad today?"}},
        {"id": 402, "level": 4, "text": {"cs": "S kým se chceš o dobrou náladu podělit?", "sk": "S kým sa chceš podeliť o dobrú náladu?", "en": "Who do you want to share your good mood with?"}},
        {"id": 403, "level": 4, "text": {"cs": "Co z dneška si chceš zapamatovat?", "sk": "Čo z dnešného dňa si chceš zapamätať?", "en": "What about today do you want to remember?"}}
      ],
      "goalQuestions": [
        {"id": 1, "multiline": true, "text": {"cs": "Co tě v poslední době nejvíc stresuje?", "sk": "Čo ťa v poslednom čase najviac stresuje?", "en": "What has stressed you most lately?"}},
        {"id": 2, "multiline": false, "isGoal": true, "text": {"cs": "Jaký jeden cíl si na příští týden dáš? (Krátce a konkrétně.)", "sk": "Aký jeden cieľ si dáš na budúci týždeň? (Stručne a konkrétne.)", "en": "Which one goal do you set for next week? (Short and concrete.)"}},
        {"id": 3, "multiline": true, "text": {"cs": "Podle čeho poznáš, že se ti cíl podařil?", "sk": "Podľa čoho spoznáš, že sa ti cieľ podarilo splniť?", "en": "How will you know you reached it?"}},
        {"id": 4, "multiline": true, "text": {"cs": "Co ti může v cestě stát a jak si poradíš?", "sk": "Čo ti môže stáť v ceste a ako si poradíš?", "en": "What may stand in the way, and how will you deal with it?"}}
      ],
      "timeQuestions": [
        {"id": 1, "multiline": true, "text": {"cs": "Na co včera padlo nejvíc času?", "sk": "Čo ti včera zabralo najviac času?", "en": "What took most of your time yesterday?"}},
        {"id": 2, "multiline": true, "text": {"cs": "Které tři úkoly jsou tento týden opravdu důležité?", "sk": "Ktoré tri úlohy sú tento týždeň naozaj dôležité?", "en": "Which three tasks really matter this week?"}},
        {"id": 3, "multiline": true, "text": {"cs": "Co můžeš delegovat, odložit nebo vypustit?", "sk": "Čo môžeš delegovať, odložiť alebo vynechať?", "en": "What can you delegate, postpone or drop?"}},
        {"id": 4, "multiline": false, "text": {"cs": "Kdy si v týdnu naplánuješ čas jen pro sebe?", "sk": "Kedy si počas týždňa naplánuješ čas len pre seba?", "en": "When in the week do you plan time just for yourself?"}}
      ],
      "relaxation": {
        "intro": [
          {"title": {"cs": "Proč relaxovat", "sk": "Prečo relaxovať", "en": "Why relax"}, "text": {"cs": "Při stresu se tělo napíná. Pravidelná relaxace učí tělo povolit.", "sk": "Pri strese sa telo napína. Pravidelná relaxácia učí telo uvoľniť sa.", "en": "Stress tenses the body. Regular relaxation teaches it to let go."}},
          {"title": {"cs": "Jak na to", "sk": "Ako na to", "en": "How to"}, "text": {"cs": "Spusť stopky, cvič, a až skončíš, stopky zastav. Změříme, jak dlouho jsi relaxoval/a.", "sk": "Spusti stopky, cvič, a keď skončíš, stopky zastav. Zmeriame, ako dlho si relaxoval/a.", "en": "Start the timer, practise, and stop it when you finish. We measure how long you relaxed."}}
        ],
        "techniques": [
          {"title": {"cs": "Dýchání do břicha", "sk": "Dýchanie do brucha", "en": "Belly breathing"}, "text": {"cs": "Nádech nosem na čtyři doby, výdech ústy na šest. Desetkrát.", "sk": "Nádych nosom na štyri doby, výdych ústami na šesť. Desaťkrát.", "en": "Breathe in through the nose for four counts, out through the mouth for six. Ten times."}},
          {"title": {"cs": "Progresivní svalová relaxace", "sk": "Progresívna svalová relaxácia", "en": "Progressive muscle relaxation"}, "text": {"cs": "Postupně napni a uvolni svaly od chodidel po obličej.", "sk": "Postupne napni a uvoľni svaly od chodidiel po tvár.", "en": "Tense and release your muscles one group at a time, from the feet to the face."}},
          {"title": {"cs": "Bezpečné místo", "sk": "Bezpečné miesto", "en": "A safe place"}, "text": {"cs": "Představ si místo, kde se cítíš v bezpečí, se všemi jeho zvuky a vůněmi.", "sk": "Predstav si miesto, kde sa cítiš v bezpečí, so všetkými jeho zvukmi a vôňami.", "en": "Imagine a place where you feel safe, with all its sounds and smells."}}
        ]
      },
      "meaningQuestions": [
        {"id": 1, "type": 1, "text": {"cs": "Chápu smysl svého života.", "sk": "Chápem zmysel svojho života.", "en": "I understand my life's meaning."}},
        {"id": 2, "type": 2, "text": {"cs": "Hledám něco, co učiní můj život smysluplným.", "sk": "Hľadám niečo, čo urobí môj život zmysluplným.", "en": "I am looking for something that makes my life feel meaningful."}},
        {"id": 3, "type": 1, "text": {"cs": "Můj život má jasný směr.", "sk": "Môj život má jasný smer.", "en": "My life has a clear direction."}},
        {"id": 4, "type": 1, "text": {"cs": "Vím, co dává mému životu smysl.", "sk": "Viem, čo dáva môjmu životu zmysel.", "en": "I know what makes my life meaningful."}},
        {"id": 5, "type": 1, "text": {"cs": "Našel/našla jsem uspokojivý cíl svého života.", "sk": "Našiel/našla som uspokojivý cieľ svojho života.", "en": "I have found a satisfying purpose in life."}},
        {"id": 6, "type": 1, "text": {"cs": "Můj život má smysl.", "sk": "Môj život má zmysel.", "en": "My life has meaning."}},
        {"id": 7, "type": 2, "text": {"cs": "Stále hledám svůj životní účel.", "sk": "Stále hľadám účel svojho života.", "en": "I am always looking for my life's purpose."}},
        {"id": 8, "type": 2, "text": {"cs": "Hledám poslání svého života.", "sk": "Hľadám poslanie svojho života.", "en": "I am seeking a mission for my life."}},
        {"id": 9, "type": 2, "text": {"cs": "Hledám, co by můj život naplnilo.", "sk": "Hľadám, čo by naplnilo môj život.", "en": "I am searching for what would fulfil my life."}},
        {"id": 10, "type": 2, "text": {"cs": "Pátrám po tom, proč jsem tady.", "sk": "Pátram po tom, prečo som tu.", "en": "I wonder why I am here."}},
        {"id": 11, "type": 3, "text": {"cs": "Těžké chvíle mě něco naučily.", "sk": "Ťažké chvíle ma niečo naučili.", "en": "Hard times have taught me something."}},
        {"id": 12, "type": 3, "text": {"cs": "I ve stresu dokážu najít něco dobrého.", "sk": "Aj v strese dokážem nájsť niečo dobré.", "en": "Even under stress I can find something good."}},
        {"id": 13, "type": 3, "text": {"cs": "Mám lidi, na které se mohu obrátit.", "sk": "Mám ľudí, na ktorých sa môžem obrátiť.", "en": "I have people I can turn to."}},
        {"id": 14, "type": 3, "text": {"cs": "Věřím, že situaci zvládnu.", "sk": "Verím, že situáciu zvládnem.", "en": "I believe I can handle the situation."}},
        {"id": 15, "type": 3, "text": {"cs": "Každý člověk by se měl snažit hledat smysl svého života.", "sk": "Každý človek by sa mal snažiť hľadať zmysel svojho života.", "en": "Everyone should try to find the meaning of their life."}}
      ],
      "entryTest": {
        "title": {"cs": "Vnímaný stres za poslední měsíc (0 = nikdy, 4 = velmi často)", "sk": "Vnímaný stres za posledný mesiac (0 = nikdy, 4 = veľmi často)", "en": "Perceived stress over the last month (0 = never, 4 = very often)"},
        "items": [
          {"id": 1, "text": {"cs": "Jak často tě rozhodilo něco nečekaného?", "sk": "Ako často ťa rozhodilo niečo nečakané?", "en": "How often were you upset by something unexpected?"}},
          {"id": 2, "text": {"cs": "Jak často jsi měl/a pocit, že nemáš pod kontrolou důležité věci?", "sk": "Ako často si mal/a pocit, že nemáš pod kontrolou dôležité veci?", "en": "How often did you feel unable to control the important things?"}},
          {"id": 3, "text": {"cs": "Jak často ses cítil/a nervózní a ve stresu?", "sk": "Ako často si sa cítil/a nervózny/a a v strese?", "en": "How often did you feel nervous and stressed?"}},
          {"id": 4, "text": {"cs": "Jak často sis věřil/a, že zvládneš své osobní problémy?", "sk": "Ako často si si veril/a, že zvládneš svoje osobné problémy?", "en": "How often did you feel confident about handling your personal problems?"}},
          {"id": 5, "text": {"cs": "Jak často se ti hromadily potíže tak, že jsi je nemohl/a překonat?", "sk": "Ako často sa ti hromadili ťažkosti tak, že si ich nemohol/nemohla prekonať?", "en": "How often did difficulties pile up so high that you could not overcome them?"}}
        ]
      },
      "screen": {
        "title": {"cs": "Úvodní dotazník", "sk": "Úvodný dotazník", "en": "Screening questionnaire"},
        "questions": [
          {"id": 1, "text": {"cs": "Studuješ?", "sk": "Študuješ?", "en": "Are you studying?"}, "options": [
            {"id": 1, "text": {"cs": "Bakalářský program", "sk": "Bakalársky program", "en": "Bachelor's"}}, {"id": 2, "text": {"cs": "Magisterský program", "sk": "Magisterský program", "en": "Master's"}},
            {"id": 3, "text": {"cs": "Doktorský program", "sk": "Doktorandský program", "en": "Doctoral"}}, {"id": 4, "text": {"cs": "Nestuduji", "sk": "Neštudujem", "en": "Not studying"}}]},
          {"id": 2, "text": {"cs": "Vyhledal/a jsi někdy kvůli stresu odbornou pomoc?", "sk": "Vyhľadal/a si niekedy pre stres odbornú pomoc?", "en": "Have you ever sought professional help because of stress?"}, "options": [
            {"id": 1, "text": {"cs": "Ano", "sk": "Áno", "en": "Yes"}}, {"id": 2, "text": {"cs": "Ne", "sk": "Nie", "en": "No"}}, {"id": 3, "text": {"cs": "Nechci odpovídat", "sk": "Nechcem odpovedať", "en": "Prefer not to say"}}]},
          {"id": 3, "text": {"cs": "Kolik hodin denně obvykle spíš?", "sk": "Koľko hodín denne zvyčajne spíš?", "en": "How many hours a day do you usually sleep?"}, "options": [
            {"id": 1, "text": {"cs": "Méně než 6", "sk": "Menej ako 6", "en": "Under 6"}}, {"id": 2, "text": {"cs": "6–8", "sk": "6–8", "en": "6–8"}}, {"id": 3, "text": {"cs": "Více než 8", "sk": "Viac ako 8", "en": "Over 8"}}]}
        ]
      },
      "scales": {"entry": [0, 4], "meaning": [1, 7], "evaluation": [1, 5], "stress": [0, 10], "appRating": [1, 5]},
      "libraryIntro": {"cs": "Knihovna: krátké texty o stresu a o tom, jak ho zvládat.", "sk": "Knižnica: krátke texty o strese a o tom, ako ho zvládať.", "en": "The library: short texts on stress and how to cope with it."},
      "library": [
        {"id": "L1", "parent": null, "position": 1, "title": {"cs": "Co je stres", "sk": "Čo je stres", "en": "What stress is"}, "text": {"cs": "Stres vzniká, když situaci vnímáme jako ohrožující a nevěříme, že ji zvládneme.", "sk": "Stres vzniká, keď situáciu vnímame ako ohrozujúcu a neveríme, že ju zvládneme.", "en": "Stress arises when we see a situation as a threat and doubt we can handle it."}},
        {"id": "L1.1", "parent": "L1", "position": 1, "title": {"cs": "Hodnocení (appraisal)", "sk": "Hodnotenie (appraisal)", "en": "Appraisal"}, "text": {"cs": "Nejdřív posoudíme, zda nás situace ohrožuje, pak zda na ni máme síly.", "sk": "Najprv posúdime, či nás situácia ohrozuje, potom či na ňu máme sily.", "en": "First we judge whether a situation threatens us, then whether we have the resources for it."}},
        {"id": "L1.2", "parent": "L1", "position": 2, "title": {"cs": "Zvládání (coping)", "sk": "Zvládanie (coping)", "en": "Coping"}, "text": {"cs": "Zvládání je vše, co děláme, abychom stres zmírnili.", "sk": "Zvládanie je všetko, čo robíme, aby sme stres zmiernili.", "en": "Coping is everything we do to ease stress."}},
        {"id": "L1.2.1", "parent": "L1.2", "position": 1, "title": {"cs": "Zaměřené na problém", "sk": "Zamerané na problém", "en": "Problem-focused"}, "text": {"cs": "Měníme situaci: plánujeme, řešíme, hledáme informace.", "sk": "Meníme situáciu: plánujeme, riešime, hľadáme informácie.", "en": "We change the situation: plan, solve, find information."}},
        {"id": "L1.2.2", "parent": "L1.2", "position": 2, "title": {"cs": "Zaměřené na emoce", "sk": "Zamerané na emócie", "en": "Emotion-focused"}, "text": {"cs": "Měníme, jak se cítíme: relaxace, pohyb, sdílení.", "sk": "Meníme to, ako sa cítime: relaxácia, pohyb, zdieľanie.", "en": "We change how we feel: relaxation, exercise, talking."}},
        {"id": "L1.2.3", "parent": "L1.2", "position": 3, "title": {"cs": "Zaměřené na smysl", "sk": "Zamerané na zmysel", "en": "Meaning-focused"}, "text": {"cs": "Hledáme v situaci smysl a to, co je pro nás důležité.", "sk": "Hľadáme v situácii zmysel a to, čo je pre nás dôležité.", "en": "We look for meaning in the situation and for what matters to us."}},
        {"id": "L2", "parent": null, "position": 2, "title": {"cs": "Stres při studiu", "sk": "Stres pri štúdiu", "en": "Stress while studying"}, "text": {"cs": "Zkoušky, termíny a nejistota: jak s nimi pracovat.", "sk": "Skúšky, termíny a neistota: ako s nimi pracovať.", "en": "Exams, deadlines and uncertainty: how to work with them."}},
        {"id": "L2.1", "parent": "L2", "position": 1, "title": {"cs": "Před zkouškou", "sk": "Pred skúškou", "en": "Before an exam"}, "text": {"cs": "Večer před zkouškou pomáhá krátká relaxace a dostatek spánku.", "sk": "Večer pred skúškou pomáha krátka relaxácia a dostatok spánku.", "en": "The evening before an exam, a short relaxation and enough sleep help."}},
        {"id": "L3", "parent": null, "position": 3, "title": {"cs": "Kde hledat pomoc", "sk": "Kde hľadať pomoc", "en": "Where to find help"}, "text": {"cs": "Když je toho moc, obrať se na odborníka. Kontakty najdeš v části O aplikaci → Náš tým.", "sk": "Keď je toho priveľa, obráť sa na odborníka. Kontakty nájdeš v časti O aplikácii → Náš tím.", "en": "When it gets too much, turn to a professional. Contacts are under About → Our team."}}
      ],
      "team": [
        {"name": {"cs": "Manažerka stresu", "sk": "Manažérka stresu", "en": "Stress manager"}, "members": [
          {"heading": "Jana Nováková", "description": {"cs": "Doplňující informace", "sk": "Doplňujúce informácie", "en": "Further information"}, "email": "pomoc@nestresuju.cz", "phone": "+420 777 123 123"}]},
        {"name": {"cs": "IT ve stresu", "sk": "IT v strese", "en": "IT under stress"}, "members": [
          {"heading": "Jan Novák", "email": "jenda@nestresuju.cz"}]}
      ],
      "research": {
        "text": {"cs": "<p>Aplikace je součástí výzkumu zvládání stresu u vysokoškolských studentů.</p>", "sk": "<p>Aplikácia je súčasťou výskumu zvládania stresu u vysokoškolských študentov.</p>", "en": "<p>The app is part of research into how university students cope with stress.</p>"},
        "subsections": [
          {"name": {"cs": "Informovaný souhlas", "sk": "Informovaný súhlas", "en": "Informed consent"}, "text": {"cs": "<p>Souhlasíš se zpracováním údajů, které v aplikaci zadáš, pro účely výzkumu. Souhlas můžeš kdykoli odvolat; tvá data se tím nevratně smažou a účet zanikne.</p>", "sk": "<p>Súhlasíš so spracovaním údajov, ktoré v aplikácii zadáš, na účely výskumu. Súhlas môžeš kedykoľvek odvolať; tvoje údaje sa tým nenávratne vymažú a účet zanikne.</p>", "en": "<p>You agree that the data you enter is processed for the research. You can withdraw at any time; your data is then deleted irreversibly and the account is closed.</p>"}},
          {"name": {"cs": "Další informace", "sk": "Ďalšie informácie", "en": "Further information"}, "text": {"cs": "<p>Výsledky výzkumu zveřejníme anonymně.</p>", "sk": "<p>Výsledky výskumu zverejníme anonymne.</p>", "en": "<p>The results are published anonymously.</p>"}}
        ]
      },
      "tech": {"website": "https://nestresuju.cz", "moduleVersion": "1.0.0"}
    }
    """#
}
